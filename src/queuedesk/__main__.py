from queuedesk.cli import main

raise SystemExit(main())
