"""turngate as a LiteLLM proxy guardrail (`pip install 'turngate[litellm]'`): every chat
completion's tool calls are checked against the request's `tools` before the app sees them.
A turn that fits goes out unchanged; a refused turn is answered to the model (a `tool`
message per call id) and asked again through the proxy's router, up to `rounds` times; when
no turn fits, the app gets text saying so and no tool call. See docs/gateway.md.

    guardrails:
      - guardrail_name: turngate
        litellm_params:
          guardrail: turngate.integrations.litellm.TurnGuardrail
          mode: post_call
          default_on: true
"""

from turngate.extras import missing_extra

try:
    import litellm  # noqa: F401  (the extra itself; each module below imports what it uses of it)
except ImportError as error:  # the extra is missing, or of a release it does not allow
    raise missing_extra("litellm", __name__, error) from error

from .guardrail import TurnGuardrail  # noqa: E402
from .options import GateOptions, OptionError, RecordStep  # noqa: E402

__all__ = ["GateOptions", "OptionError", "RecordStep", "TurnGuardrail"]
