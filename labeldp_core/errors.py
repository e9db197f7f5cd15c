"""Error types that the command line and the app turn into one clear message."""

__all__ = ["DatasetUnavailableError", "InvalidInputError", "LabelDPError"]


class LabelDPError(Exception):
    """Base class of every error whose message is meant for the user as is."""


class InvalidInputError(LabelDPError, ValueError):
    """A parameter or an input array is out of its allowed range; the message names the fix."""


class DatasetUnavailableError(LabelDPError):
    """A registered dataset is not on this machine; the message says how to get it."""
