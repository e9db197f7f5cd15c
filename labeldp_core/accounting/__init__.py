"""Privacy accounting: budget splits and composition, PATE analysis, DP-SGD accountants."""

__all__: list[str] = []
