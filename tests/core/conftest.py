import pytest


@pytest.fixture
def spans():
    """An in-memory exporter receiving this SDK's spans (the global provider is untouched)."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from agent_sdk.tracing import use_tracer_provider

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    yield exporter
    use_tracer_provider(None)
    provider.shutdown()


@pytest.fixture(autouse=True, scope="module")
def _core_tests_do_not_load_installed_plugins():
    """Core tests are about the core: installed framework plugins are not loaded here
    (the plugin tests opt back in explicitly)."""
    import os

    from agent_sdk.plugins import reset_plugins

    os.environ["AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    reset_plugins()
    yield
    os.environ.pop("AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD", None)
    reset_plugins()
