"""QueueDesk: human-in-the-loop work queues, as a service and a terminal app."""

__version__ = "0.1.0"
