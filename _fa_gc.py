import asyncio, gc, sys, time, statistics
from tests.benchmarks.bench_fanout import target_for
from tests.benchmarks.common import quiet_frameworks
N = int(sys.argv[2]); name = sys.argv[1]
async def main():
    t = target_for(name, [N])
    async with t.session():
        await t.once(2, None); await t.once_native(2)
        rs = []
        for i in range(4):
            gc.collect()
            a = time.perf_counter(); await t.once_native(N); b = time.perf_counter(); await t.once(N, None); c = time.perf_counter()
            rs.append((c-b)/(b-a))
            print(f"native {b-a:.3f}s ours {c-b:.3f}s  ratio {(c-b)/(b-a):.2f}", flush=True)
        print("median", round(statistics.median(rs), 2))
quiet_frameworks()
asyncio.run(main())
