"""The tests folder itself: pytest puts this file's folder on `sys.path`, so support
modules kept here (`cli_process`) import by name from tests in any subfolder."""
