import pytest

# The `spans` fixture comes from the contract kit's pytest plugin (agent_sdk.testing).


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
