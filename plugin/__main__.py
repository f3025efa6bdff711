from plugin.cli import main

main()
