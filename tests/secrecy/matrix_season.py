ENTRIES: dict = {}
PRG: set = set()
