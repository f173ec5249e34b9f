"""Keys in the order they were typed: reading, escape prefixes, the keymap's ids."""
