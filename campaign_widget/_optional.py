"""Optional dependencies fail with an error that says what to install."""


def require_pandas(feature: str):
    try:
        import pandas
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"{feature} needs pandas: pip install pandas") from None
    return pandas
