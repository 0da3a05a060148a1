from seams_cli.main import entry

entry()
