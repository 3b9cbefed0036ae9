import sys

from earmark.cli import main

sys.exit(main())
