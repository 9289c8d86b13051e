"""Optional dependencies fail with an error that says what to install."""

from importlib import import_module
from types import ModuleType


def require_pandas(feature: str):
    try:
        import pandas
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"{feature} needs pandas: pip install pandas") from None
    return pandas


def require(module: str, feature: str, extra: str) -> ModuleType:
    """``module`` imported, or an ImportError of one line naming the package's extra that installs it."""
    try:
        return import_module(module)
    except ImportError:
        raise ImportError(f"{feature} needs {module}: pip install 'campaign_widget[{extra}]'") from None
