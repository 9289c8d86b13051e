"""``python -m campaign_widget.cli``: the ``campaign-widget`` command."""

import sys

from . import main

if __name__ == "__main__":  # imported (by a walk over the package's modules), it runs nothing
    sys.exit(main())
