"""The optional extras (`mcp` and one per framework): what a module that needs one raises when
its packages cannot be imported. Below every layer: it imports nothing of turngate."""

from __future__ import annotations


def missing_extra(extra: str, module: str, error: ImportError) -> ImportError:
    """The error `module` raises in place of `error`, an import of its extra's packages that
    failed (not installed, or of a release the extra does not allow): one sentence naming the
    releases the extra allows and the command that installs them."""
    allowed = _allowed(extra)
    return ImportError(
        f"{module} needs the {extra} extra{f' ({allowed})' if allowed else ''}, which is not installed or "
        f"not of a release it allows ({error}); install it with: python3 -m pip install 'turngate[{extra}]'.",
        name=error.name, path=error.path)


def _allowed(extra: str) -> str:
    """The requirements of the extra, as the installed turngate declares them."""
    from importlib import metadata  # only when an import has failed: it costs milliseconds

    try:
        declared = metadata.requires("turngate") or []
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        return ""
    return ", ".join(requirement.split(";")[0].strip() for requirement in declared
                     if f'extra == "{extra}"' in requirement.replace("'", '"'))
