"""The assistant's turn logic: input guard, intent (NORMAL/ALTER), the orchestrator and the external agent client; no Chainlit."""
