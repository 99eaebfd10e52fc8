"""The frontend: Python source of ``construct`` -> IR, through a Resolver (resolve.py)."""
