"""The app layer: what the runtime's one request handler is.

The registry and its decorators, signature → schema, the Context a handler sees, the method
handlers, content and pagination, and the middleware pipeline that wraps them.
"""

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names
from .app import App, Notification, SessionHooks
from .context import Context
from .errors import ToolError
from .http_request import HttpRequest
from .lifespan import LifespanError
from .middleware import Middleware, Request
from .plugin_options import OptionError, PluginOptions
from .registry import Registry
from .signature import Param
from .user_settings import UserSetting

if TYPE_CHECKING:  # the names __getattr__ provides, as a type checker sees them
    from .reshape import Fixed, FromEnv, FromPrincipal

__all__ = [
    "App",
    "Context",
    "Fixed",
    "FromEnv",
    "FromPrincipal",
    "HttpRequest",
    "LifespanError",
    "Middleware",
    "Notification",
    "OptionError",
    "Param",
    "PluginOptions",
    "Registry",
    "UserSetting",
    "Request",
    "SessionHooks",
    "ToolError",
]


# The reshaping sources are imported when first named: a server that reshapes nothing (most)
# starts without building their classes.
__getattr__ = lazy_names(__name__, {".reshape": ("Fixed", "FromEnv", "FromPrincipal")})
