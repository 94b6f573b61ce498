"""Relais kit: settings, the model seam, embeddings, retry policy, events and logging.

Import from the submodules (`relais.settings`, `relais.models`, ...): the package itself imports
nothing, since every `relais.*` import runs it and `relais.models` alone (LangChain) would add
seconds to `relais --help`.
"""
