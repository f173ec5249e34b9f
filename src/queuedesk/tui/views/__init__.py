"""What the live views of supervisors share: polling, periods, sorting, pickers."""
