"""The QueueDesk terminal app (Textual): workers, supervisors and admins."""
