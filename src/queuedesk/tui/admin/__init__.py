"""What the admin's editors check before anything is sent: queue drafts, webhook targets."""
