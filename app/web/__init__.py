"""What every page shares, whatever its domain: templating, CSRF, flash messages, forms'
errors, and sending a visitor to log in and back.

A leaf: it imports no domain (a contract in .importlinter). Domains hand it what their
pages need instead: template helpers are registered by the app factory (app/main.py)."""
