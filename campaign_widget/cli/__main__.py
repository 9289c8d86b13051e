"""``python -m campaign_widget.cli``: the ``campaign-widget`` command."""

import sys

from . import main

sys.exit(main())
