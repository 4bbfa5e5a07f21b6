"""Ready maps (R12.13): shipped map templates, their use case, API and page form."""
