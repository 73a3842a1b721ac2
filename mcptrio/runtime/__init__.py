"""The Trio actors of a session: reader, writer, dispatcher and one worker per request, handed one request handler."""
