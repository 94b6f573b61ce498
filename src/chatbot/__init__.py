"""chatbot package."""
