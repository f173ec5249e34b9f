"""The non-interactive command line over the client, for scripts and cron."""
