"""What a service raises when the input breaks its rules: every problem by the path of what is
wrong (`messages.cart.items`, `preferences.comments.pigeon`), nothing saved. The API answers it
with the 400 naming those paths (common/resource_api.py); the admin's forms put each on its
field."""

from __future__ import annotations


class Invalid(Exception):
    def __init__(self, problems: dict[str, list[str]]):
        super().__init__("; ".join(f"{path}: {' '.join(m)}" for path, m in problems.items()))
        self.problems = problems
