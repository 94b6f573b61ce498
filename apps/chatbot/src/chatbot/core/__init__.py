"""Chatbot core: intent classification, external agent client, orchestration."""
