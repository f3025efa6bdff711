from plugin.console import main

main()
