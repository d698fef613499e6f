"""The demo: a simulator set-up, the `demo` workspace, three agent profiles and the runs `office dev` submits."""

from office.simulator.config import InjectedFailure, SimConfig, SimProvider
from routing.config import AgentProfile, ExecutionProfile, ProviderEntry, WorkspaceConfig

# Credential *references*: the worker's environment holds the values, workflow inputs only the names.
DEMO_ENV = {
    "OFFICE_CRED_DEMO_ALPHA_KEY": "sk-sim-alpha-revoked",  # alpha expects another key: a real 401 auth failure
    "OFFICE_CRED_DEMO_BETA_KEY": "sk-sim-beta",
}

DEMO_MODELS = ["demo-model", "retired-model", "sim-large"]


def demo_simulator() -> SimConfig:
    return SimConfig(
        providers={
            "alpha": SimProvider(models=DEMO_MODELS, api_key="sk-sim-alpha-current", latency_ms=150),
            "beta": SimProvider(
                models=DEMO_MODELS,
                default_model="sim-large",
                api_key="sk-sim-beta",
                latency_ms=150,
                chunk_delay_ms=20,
                # Still listed in the catalog, but the provider retired it: chat answers 404.
                failures=[InjectedFailure(status=404, kind="model_not_found", models=["retired-model"])],
            ),
        }
    )


def demo_workspace(simulator_url: str) -> WorkspaceConfig:
    return WorkspaceConfig(
        name="demo",
        provider_order=[ProviderEntry(provider="alpha"), ProviderEntry(provider="beta")],
        providers={
            "alpha": ExecutionProfile(
                base_url=f"{simulator_url}/p/alpha/v1", credential_env="OFFICE_CRED_DEMO_ALPHA_KEY"
            ),
            "beta": ExecutionProfile(
                base_url=f"{simulator_url}/p/beta/v1",
                credential_env="OFFICE_CRED_DEMO_BETA_KEY",
                default_model="sim-large",
            ),
        },
    )


DEMO_AGENTS = [
    AgentProfile(name="coder", model="demo-model"),
    AgentProfile(name="legacy", model="retired-model"),
    AgentProfile(name="drifted", model="gpt-4-0314"),  # no simulated provider advertises it any more
]

# (run id, agent, prompt): submitted once per data dir, in this order.
DEMO_RUNS = [
    ("demo-auth-fallback", "coder", "Fix the failing test in tests/test_parser.py"),
    ("demo-model-gone", "legacy", "Refactor the billing module"),
    ("demo-model-drift", "drifted", "Write a changelog entry for the last release"),
]
