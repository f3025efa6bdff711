"""Reading manifests from files, folders and stdin; the path policy for the files the settings name.

Directories are walked recursively in a stable (sorted) order, following symlinks, and only
``.yaml``, ``.yml`` and ``.json`` files are read (one walker for every front end). Bytes are decoded as UTF-8 (a BOM is dropped) or, after a UTF-16
BOM, as UTF-16; anything else is a per-file error, never a crash.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any
from collections.abc import Collection, Iterable, Iterator, Mapping
from renderer.records import dataclass, field, replace

from plugin.yamlio.codec import Document, load_documents
from renderer.results import Code, Result

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Source:
    """A file's display name and its decoded text; ``found`` when a folder walk found it (not named by the user)."""

    name: str
    text: str
    found: bool = False


_UTF32_BOMS = (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00")
_UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


def decode(data: bytes, name: str) -> tuple[str | None, list[Result]]:
    """The text of a manifest file, or a one-line error naming the byte offset.

    UTF-8 unless a byte order mark says otherwise: a UTF-8 BOM is dropped and a UTF-16 (LE or
    BE) BOM switches to UTF-16, as kubectl reads files. Unlike kubectl, bytes that are not valid
    in the encoding are an error rather than silently replaced. UTF-32 is refused by name (its
    little-endian BOM would otherwise read as UTF-16 followed by a NUL).
    Mirrors: k8s.io/cli-runtime pkg/resource/visitor.go FileVisitor.Visit
    (unicode.BOMOverride(unicode.UTF8.NewDecoder())).
    """
    if data.startswith(_UTF32_BOMS):
        return None, [Result("UTF-32 is not supported (save the file as UTF-8)", file=name, code=Code.INPUT)]
    encoding, skip = "utf-8", 3 if data.startswith(b"\xef\xbb\xbf") else 0
    if data[:2] in _UTF16_BOMS:
        encoding, skip = _UTF16_BOMS[data[:2]], 2
    try:
        return data[skip:].decode(encoding), []
    except UnicodeDecodeError as err:
        label = "UTF-8" if encoding == "utf-8" else "UTF-16"
        return None, [Result(f"not valid {label} at byte {err.start + skip}", file=name, code=Code.INPUT)]


# Input limits (docs/reliability.md "Input limits"): each file, and stdin, holds at most MAX_FILE_BYTES; one
# run reads at most MAX_INPUT_BYTES in total. Past them the run stops with one clear error
# instead of growing memory until the machine or the sidecar's limit ends it.
MAX_FILE_BYTES = 64 * 2**20
MAX_INPUT_BYTES = 64 * 2**20


def limit_text(size: int) -> str:
    return f"{size // 2**20} MiB"


# Object limits (docs/reliability.md "Input limits"): one run reads at most MAX_OBJECTS objects (documents,
# with the items of kinds ending in List counted one by one, or the items of a ResourceList)
# and writes at most renderer.config.MAX_RENDERED_OBJECTS (the core enforces that one: RenderConfig.max_rendered_objects).
# Byte limits alone let small documents multiply: 64 MiB of empty documents are millions of objects.
MAX_OBJECTS = 100_000


def too_many_objects(limit: int = MAX_OBJECTS, file: str = "", index: int | None = None) -> Result:
    """The one-line error for an input past the object limit; ``index``: the document of the first object past it."""
    return Result(
        f"the input holds more than {limit:,} objects, the limit per run; split it into several runs", file=file, index=index, code=Code.INPUT
    )


class ObjectBudget:
    """What is left of the object limit of one run, across the files it reads."""

    def __init__(self, limit: int = MAX_OBJECTS) -> None:
        self.limit = limit
        self.left = limit

    def take(self, count: int, file: str) -> Result | None:
        """Count ``count`` more objects of ``file``; the error once the run is past the limit."""
        self.left -= count
        return too_many_objects(self.limit, file) if self.left < 0 else None

    def count(self, documents: list[Document], file: str) -> Result | None:
        """Count a file's documents; the error, at the document of the first object past the limit, once the run is past it."""
        left = self.left
        over = self.take(len(documents), file)
        if over is None:
            return None
        return too_many_objects(self.limit, file, documents[left].index if 0 <= left < len(documents) else None)

    def read(self, text: str, file: str) -> tuple[list[Document] | None, list[Result]]:
        """A text's documents, counted while they are read (the text is parsed only up to the
        first object past the limit); ``None`` (with the error) once the run is past the limit."""
        documents, problems = load_documents(text, file, limit=max(self.left, 0))
        over = self.count(documents, file)
        if over is not None:
            return None, [*problems, over]
        return documents, problems

    def load(self, source: Source) -> tuple[list[Document] | None, list[Result]]:
        """A source's documents, counted (``read``)."""
        return self.read(source.text, source.name)


_SPECIAL_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                  (stat.S_ISSOCK, "a socket"))


def read_bytes(
    path: str, name: str, confine_to: str | None = None, special_ok: bool = False, limit: int = MAX_FILE_BYTES
) -> tuple[bytes | None, list[Result]]:
    """A file's bytes, or a one-line error naming it.

    Only regular files are read, unless ``special_ok`` (a path the user named directly, such as
    ``/dev/stdin``): a FIFO found in a folder would block the run, a device never ends. With
    ``confine_to`` (the CMP's repository root) a file whose real path leads outside that folder
    is refused, through whatever symlinks, and special files are never read. At most ``limit``
    bytes are read.
    """
    try:
        if confine_to is not None and not is_within(os.path.realpath(path), confine_to):
            return None, [Result("leads outside the repository (through a symlink); it is not read", file=name, code=Code.INPUT)]
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            return None, [Result("is a folder, not a file", file=name, code=Code.INPUT)]
        if not stat.S_ISREG(info.st_mode) and (confine_to is not None or not special_ok):
            what = next((label for test, label in _SPECIAL_KINDS if test(info.st_mode)), "not a regular file")
            return None, [Result(f"is {what}, not a regular file; it is not read", file=name, code=Code.INPUT)]
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            return None, [Result(f"is larger than the input limit of {limit_text(limit)}", file=name, code=Code.INPUT)]
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except (OSError, ValueError) as err:
        # ValueError: a NUL byte in the path
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return None, [Result(f"cannot read: {reason}", file=name, code=Code.INPUT)]
    if len(data) > limit:
        return None, [Result(f"is larger than the input limit of {limit_text(limit)}", file=name, code=Code.INPUT)]
    return data, []


def read_text(
    path: str, display: str | None = None, confine_to: str | None = None, special_ok: bool = False
) -> tuple[str | None, list[Result]]:
    """A file's decoded text, or a one-line error naming it (``display`` names it in messages)."""
    name = display or path
    data, problems = read_bytes(path, name, confine_to, special_ok)
    if data is None:
        return None, problems
    return decode(data, name)


def walk_manifests(
    root: str, confine_to: str | None = None, skip: Collection[str] = (), apps: list[tuple[str, str]] | None = None,
    charts: list[str] | None = None,
) -> tuple[list[tuple[str, str]], list[Result]]:
    """``(real path, display name)`` of every manifest file under ``root``, with every problem.

    The one directory walk of every front end. Order: a folder's files sorted by name, then its
    sub-folders in name order, recursively. Hidden entries (``.git``, ``.argocd-source.yaml``)
    are skipped. Symlinks to files and folders are followed, each real folder once; a broken
    symlink with a manifest suffix is reported. With ``confine_to`` (the CMP's repository root)
    a symlink leading outside that folder is refused, as Argo CD's repo-server refuses
    out-of-bounds symlinks, and display names are relative to it; otherwise a display name is
    the path as reached from ``root``. Files whose real path is in ``skip`` are left out.

    With ``apps`` (a list to fill), a sub-folder holding a kustomization file is not walked:
    ``(folder, kustomization file)`` is appended to it instead, as reached from ``root``, for
    the app reader to build (``plugin.app_reader``).

    With ``charts`` (a list to fill), a folder holding a Helm chart (``Chart.yaml``), ``root``
    included, is not walked either: its path as reached from ``root`` is appended (its
    templates are not manifests; ``plugin.app_reader.helm_chart_error`` says so in one line).
    """
    found: list[tuple[str, str]] = []
    results: list[Result] = []
    visited: set[str] = set()

    def display(path: str) -> str:
        return os.path.relpath(path, confine_to) if confine_to is not None else path

    # (lexical path, real path) of the folders still to read: an explicit stack, so depth is not
    # bounded by Python's recursion limit, and real paths derived from the parent's rather than
    # resolved again for every entry, so the walk stays linear in the depth.
    stack: list[tuple[str, str]] = [(root, os.path.realpath(root))]
    while stack:
        lexical, real_dir = stack.pop()
        if real_dir in visited:
            continue
        visited.add(real_dir)
        if charts is not None and os.path.isfile(os.path.join(lexical, HELM_CHART_FILE)):
            charts.append(lexical)
            continue
        try:
            names = sorted(os.listdir(lexical))
        except OSError as err:
            results.append(Result(f"cannot read folder: {err.strerror or err}", file=display(lexical), code=Code.INPUT))
            continue
        subdirs: list[tuple[str, str]] = []
        for name in names:
            if name.startswith("."):
                continue
            path = os.path.join(lexical, name)
            if os.path.islink(path):
                real = os.path.realpath(path)
                if confine_to is not None and not is_within(real, confine_to):
                    results.append(Result(f"symlink points outside the repository (-> {os.readlink(path)})", file=display(path), code=Code.INPUT))
                    continue
                if not os.path.exists(real):
                    if name.endswith(MANIFEST_SUFFIXES):
                        results.append(Result(f"broken symlink (-> {os.readlink(path)})", file=display(path), code=Code.INPUT))
                    continue
            else:
                real = os.path.join(real_dir, name)
            if os.path.isdir(real):
                kustomization = find_kustomization(path) if apps is not None else None
                if kustomization is not None and apps is not None:
                    apps.append((path, kustomization))
                else:
                    subdirs.append((path, real))
            elif name.endswith(MANIFEST_SUFFIXES) and real not in skip:
                found.append((real, display(path)))
        stack.extend(reversed(subdirs))
    return found, results


# The file that makes a folder a Helm chart.
HELM_CHART_FILE = "Chart.yaml"

# The names kustomize looks for, in its order (api/konfig/general.go RecognizedKustomizationFileNames).
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def find_kustomization(folder: str) -> str | None:
    """The folder's own kustomization file, if it has one (kustomize's names, in its order)."""
    for name in KUSTOMIZATION_FILES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it (both normalised)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def repository_root(folder: str, resolve: bool = True) -> str | None:
    """The git work tree holding ``folder`` (the nearest folder with a ``.git`` entry), or None.

    ``resolve``: from the folder's real path (symlinks resolved); else from its absolute path as written.
    """
    here = os.path.realpath(folder) if resolve else os.path.abspath(folder)
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def shown_path(path: str, root: str) -> str:
    """A path as the user sees it: relative to ``root`` when inside it, else as it is."""
    if is_within(path, root):
        return os.path.relpath(path, root)
    return path


@dataclass(frozen=True)
class PathPolicy:
    """Which files the settings may name, and how those files are named in messages.

    Unconfined (``root`` None; the command line, the KRM function, the pre-commit hooks): a path
    is read as given, a relative one from ``base`` (None: the working directory), and a path
    named directly may be a special file such as ``/dev/stdin``.

    Confined (``root`` is the Argo CD repository): a path that comes from the repository must be
    relative (to ``base``, the app folder, or to the config file naming it), must stay inside
    ``root`` both as written and with symlinks resolved, must hold no NUL byte, and must lead
    to regular files only; files are shown relative to ``root``. The inputs named in
    ``trusted`` (such as ``config`` or ``operator-config-path`` set by the administrator) are
    read as the unconfined policy reads them, and so are the paths inside a trusted config file.

    ``labels`` name the inputs in messages (the option, variable or parameter the user wrote);
    an input without one is named by itself. ``sent_folder`` is the repository folder that
    ``root`` is when it is not the repository's own root (Argo CD sent only that folder, the
    common root of the manifest-generate-paths annotation); a path leading outside says so.
    """

    root: str | None = None
    base: str | None = None
    trusted: frozenset[str] = frozenset()
    labels: Mapping[str, str] = field(default_factory=dict)
    sent_folder: str | None = None

    def label(self, name: str) -> str:
        """How the input ``name`` is called in messages."""
        return self.labels.get(name, name)

    def show(self, path: str) -> str:
        """A file as the user sees it."""
        return path if self.root is None else shown_path(path, self.root)

    def shown(self, results: list[Result]) -> list[Result]:
        """The results with their files named as the policy shows them."""
        if self.root is None:
            return results
        return [replace(r, file=self.show(r.file)) if r.file else r for r in results]

    def confine_to(self, trusted: bool) -> str | None:
        """The folder a file named by a (trusted or untrusted) input must be read from, if any."""
        return None if trusted else self.root

    def locate(self, value: str, base: str | None, label: str, trusted: bool = False) -> tuple[str | None, list[Result]]:
        """The path to read for ``value``, named relative to ``base``, or why it is refused.

        Under a confining policy the path returned is the real one (symlinks resolved).
        """
        joined = value if base is None or os.path.isabs(value) else os.path.join(base, value)
        if self.root is None:
            return joined, []
        if "\0" in value:
            return None, [Result("must not contain a NUL byte", field=label, code=Code.CONFIG)]
        if trusted:
            return os.path.realpath(joined), []
        if os.path.isabs(value):
            return None, [Result(f"must be a path relative to the application folder (got {json.dumps(value)})", field=label, code=Code.CONFIG)]
        lexical = os.path.normpath(joined)
        real = os.path.realpath(lexical)
        if not is_within(lexical, self.root) or not is_within(real, self.root):
            message = f"path {json.dumps(value)} leads outside the repository"
            if self.sent_folder and not is_within(lexical, self.root):
                message = (
                    f"path {json.dumps(value)} leads outside the folder Argo CD sent to the plugin: only "
                    f"{json.dumps(self.sent_folder + '/')} of the repository, the common root of the Application's "
                    "argocd.argoproj.io/manifest-generate-paths annotation (reposerver.plugin.use.manifest.generate.paths "
                    "is on); list the folder this path needs in the annotation"
                )
            return None, [Result(message, field=label, code=Code.CONFIG)]
        return real, []


UNCONFINED = PathPolicy()


def nested_policy(policy: PathPolicy, folder: str, root: str | None = None) -> tuple[PathPolicy, str]:
    """The policy for the paths a settings file in ``folder`` names, and the folder they are relative to.

    A confining policy confines them too. Unconfined (the command line, the KRM function, the
    hooks), they must still stay inside the git work tree holding the file (``root`` when the
    caller extracted it from a revision): the file may come from a pull request, and must not
    make the render read /etc/passwd or another tree's OperatorConfiguration. Outside any work
    tree they are read as written.
    """
    if policy.root is not None:
        return policy, folder
    repository = root or repository_root(folder)
    if repository is None:
        return policy, folder
    return PathPolicy(root=os.path.realpath(repository)), os.path.abspath(folder)


# kustomize and kpt's marker of documents that configure tools and are never applied.
LOCAL_CONFIG_ANNOTATION = "config.kubernetes.io/local-config"


def is_local_config(obj: Any) -> bool:
    """A document annotated ``config.kubernetes.io/local-config: "true"``."""
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return False
    annotations = obj["metadata"].get("annotations") or {}
    return isinstance(annotations, dict) and str(annotations.get(LOCAL_CONFIG_ANNOTATION, "")).lower() == "true"


def manifest_files(root: str) -> tuple[list[str], list[Result]]:
    """Manifest files under ``root`` as reached from it (``walk_manifests`` without confinement)."""
    found, results = walk_manifests(root)
    return [name for _, name in found], results


def read_files(files: Iterable[tuple[str, str]]) -> tuple[list[Source], list[Result]]:
    """Decode each ``(path, display name)`` a folder walk found; sources are named by their display name."""
    sources: list[Source] = []
    results: list[Result] = []
    for path, name in files:
        text, problems = read_text(path, name)
        results.extend(problems)
        if text is not None:
            sources.append(Source(name, text, found=True))
    return sources, results


def read_sources(
    paths: Iterable[str], confine_to: str | None = None, skip: Collection[str] = (), apps: list[tuple[str, str]] | None = None,
    charts: list[str] | None = None,
) -> tuple[list[Source], list[Result]]:
    """Read every path (``-`` is stdin) into decoded sources, collecting every problem.

    A path named here may be a special file (``/dev/stdin``); files found in a folder must be
    regular files, and those whose real path is in ``skip`` are passed over. With
    ``confine_to`` nothing outside that folder is read. The run reads at most
    ``MAX_INPUT_BYTES`` in total. With ``apps``, sub-folders holding a kustomization are
    collected there instead of walked, and with ``charts`` the folders holding a Helm chart
    (``walk_manifests``).
    """
    sources: list[Source] = []
    results: list[Result] = []
    budget = MAX_INPUT_BYTES

    def add(data: bytes | None, name: str, problems: list[Result], found: bool = False) -> None:
        nonlocal budget
        results.extend(problems)
        if data is None:
            return
        budget -= len(data)
        if budget < 0:
            results.append(Result(f"the input is larger than the limit of {limit_text(MAX_INPUT_BYTES)} in total", file=name, code=Code.INPUT))
            return
        text, problems = decode(data, name)
        results.extend(problems)
        if text is not None:
            sources.append(Source(name, text, found))

    for path in paths:
        if budget < 0:
            break
        if path == "-":
            if sys.stdin is None:
                add(None, "<stdin>", [Result("cannot read: standard input is closed", file="<stdin>", code=Code.INPUT)])
                continue
            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                add(None, "<stdin>", [Result(f"is larger than the input limit of {limit_text(MAX_FILE_BYTES)}", file="<stdin>", code=Code.INPUT)])
            else:
                add(data, "<stdin>", [])
            continue
        if os.path.isdir(path):
            files, problems = walk_manifests(path, confine_to=confine_to, skip=skip, apps=apps, charts=charts)
            results.extend(problems)
            for real, name in files:
                add(*_read_named(real, name, confine_to, special_ok=False), found=True)
        else:
            add(*_read_named(path, path, confine_to, special_ok=confine_to is None))
    return sources, results


def _read_named(path: str, name: str, confine_to: str | None, special_ok: bool) -> tuple[bytes | None, str, list[Result]]:
    data, problems = read_bytes(path, name, confine_to, special_ok)
    return data, name, problems


class TextsOrDisk(Mapping[str, str]):
    """The texts a run read, by display name; a file a result names that the run did not keep is read again.

    Why: problem lines give a file's line only where its text is known (``plugin.yamlio.lines``),
    and the settings files (``--config``, ``--operator-config``, a cluster-state file) are read
    where the settings are resolved, apart from the manifests. A name is read again at most once,
    as a regular file under ``base`` (where display names are relative to), confined to
    ``confine_to`` when given; stdin and anything unreadable simply have no text.
    """

    def __init__(self, texts: Mapping[str, str], base: str = "", confine_to: str | None = None) -> None:
        self._texts = texts
        self._base = base
        self._confine_to = confine_to
        self._again: dict[str, str | None] = {}

    def __getitem__(self, name: str) -> str:
        if name in self._texts:
            return self._texts[name]
        if name not in self._again:
            self._again[name] = self._read(name)
        text = self._again[name]
        if text is None:
            raise KeyError(name)
        return text

    def _read(self, name: str) -> str | None:
        if not name or name in ("-", "<stdin>"):
            return None
        data, problems = read_bytes(os.path.join(self._base, name), name, self._confine_to)
        return decode(data, name)[0] if data is not None and not problems else None

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)


def load_sources(sources: Iterable[Source], budget: ObjectBudget | None = None) -> tuple[list[Document], list[Result]]:
    """Parse every source into documents; a broken file is reported and skipped.

    Past the object limit (``budget``, one per run) the run stops with one error.
    """
    budget = budget if budget is not None else ObjectBudget()
    documents: list[Document] = []
    results: list[Result] = []
    for source in sources:
        docs, problems = budget.load(source)
        results.extend(problems)
        if docs is None:
            break
        documents.extend(docs)
    return documents, results
