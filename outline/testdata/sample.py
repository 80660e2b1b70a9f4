import os


class Store:
    """A store."""

    def __init__(self, path):
        self.path = path

    def get(self, key):
        with open(os.path.join(self.path, key)) as f:
            return f.read()


def main():
    s = Store("/tmp")
    print(s.get("x"))


if __name__ == "__main__":
    main()
