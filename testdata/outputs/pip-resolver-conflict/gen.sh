#!/usr/bin/env bash
# pip install into a fresh venv, offline (--no-index, a local directory of
# wheels), of two local packages that pin different versions of a third:
# pip's resolver reports the conflict (ResolutionImpossible). The wheels are
# written with zipfile (name, version, Requires-Dist), as a build would.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir wheels
python3 - <<'PY'
import zipfile
def wheel(name, version, *requires):
    mod = name.replace("-", "_")
    dist = f"{mod}-{version}.dist-info"
    files = {
        f"{mod}/__init__.py": "",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{dist}/RECORD"] = "".join(f"{p},,\n" for p in files) + f"{dist}/RECORD,,\n"
    with zipfile.ZipFile(f"wheels/{mod}-{version}-py3-none-any.whl", "w") as z:
        for p, text in files.items():
            z.writestr(p, text)
wheel("tablefmt", "1.0.0")
wheel("tablefmt", "2.0.0")
wheel("report-cli", "0.4.0", "tablefmt==1.0.0")
wheel("export-kit", "1.2.0", "tablefmt>=2.0")
PY
python3 -m venv venv
venv/bin/pip install --disable-pip-version-check --no-index --find-links wheels report-cli export-kit > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/pipcase#g" "$out"
