"""Generation backends: turn prompts into sampled completions (local Hugging Face models, OpenAI-compatible HTTP)."""
