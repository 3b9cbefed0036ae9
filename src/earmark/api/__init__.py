"""What `import earmark` offers: scoring strings (`pairs`) and one function per
subcommand (`subcommands`). `earmark/__init__.py` names them lazily."""
