"""Chat profiles: each module exposes on_chat_start() and on_message(message)."""
