"""Where the introspection client's secret comes from: never a flag, which would show in ``ps``."""

SECRET_ENV = "MCPTRIO_AUTH_CLIENT_SECRET"
