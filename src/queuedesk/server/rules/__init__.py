"""The rules of work and review: claims, refusals, the review draw, webhook targets."""
