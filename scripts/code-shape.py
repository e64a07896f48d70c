#!/usr/bin/env python3
"""The server's shape, measured (issue 40): impl blocks over 200 lines
(outside #[cfg(test)]), the fields of the reply's `Run`, and file-level
`use` import loops among server/src's files.

Two counts of loops: every `use` edge, and without a module's imports of
its own descendants (the parent re-exporting a child's item, Rust's usual
facade, while the child uses the parent's). The second is the one kept at
zero: a loop there is two parts of the code that lean on each other.

    python3 scripts/code-shape.py [server/src]
"""
import os, re, sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else 'server/src'
LIMIT = 200

def lex_mask(src):
    """Returns src with comments and string/char literal contents blanked
    (same length, newlines kept), so braces can be matched."""
    out = list(src); i = 0; n = len(src)
    def blank(a, b):
        for k in range(a, b):
            if out[k] != '\n': out[k] = ' '
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i); j = n if j < 0 else j
            blank(i, j); i = j
        elif src.startswith('/*', i):
            depth = 1; j = i + 2
            while j < n and depth:
                if src.startswith('/*', j): depth += 1; j += 2
                elif src.startswith('*/', j): depth -= 1; j += 2
                else: j += 1
            blank(i, j); i = j
        elif c == 'r' and re.match(r'r#*"', src[i:i+10]) and (i == 0 or not (src[i-1].isalnum() or src[i-1] == '_')):
            m = re.match(r'r(#*)"', src[i:]); hashes = m.group(1)
            end = src.find('"' + hashes, i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(hashes)
            blank(i + 1, end); i = end
        elif c == 'b' and src.startswith('b"', i) and (i == 0 or not (src[i-1].isalnum() or src[i-1] == '_')):
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            blank(i + 1, j); i = j + 1
        elif c == "'":
            if i + 1 < n and src[i+1] == '\\':
                j = src.find("'", i + 2); blank(i + 1, j); i = j + 1
            elif i + 2 < n and src[i+2] == "'":
                blank(i + 1, i + 2); i = i + 3
            else:
                i += 1
        else:
            i += 1
    return ''.join(out)

def match_brace(masked, start):
    depth = 0
    for k in range(start, len(masked)):
        if masked[k] == '{': depth += 1
        elif masked[k] == '}':
            depth -= 1
            if depth == 0: return k
    return len(masked) - 1

def test_ranges(masked):
    """Char ranges of items under #[cfg(test)], and names of `mod x;` test children."""
    ranges, children = [], set()
    for m in re.finditer(r'#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])', masked):
        if m.group(2) == ';': children.add(m.group(1))
        else:
            b = m.end() - 1; e = match_brace(masked, b); ranges.append((m.start(), e))
    return ranges, children

files = {}   # path -> module path tuple
test_files = set()
for dp, dn, fn in os.walk(ROOT):
    for f in fn:
        if not f.endswith('.rs'): continue
        p = os.path.join(dp, f); rel = os.path.relpath(p, ROOT)
        if rel == 'main.rs': continue
        parts = rel[:-3].split(os.sep)
        if parts[-1] in ('mod', 'lib'): parts = parts[:-1]
        files[p] = tuple(parts)
mods = {v: k for k, v in files.items()}

srcs = {p: open(p).read() for p in files}
masked = {p: lex_mask(s) for p, s in srcs.items()}
for p in files:
    r, ch = test_ranges(masked[p])
    for c in ch:
        t = mods.get(files[p] + (c,))
        if t: test_files.add(t)
# children of test files are test files too
changed = True
while changed:
    changed = False
    for p, mp in files.items():
        if p in test_files: continue
        for t in test_files:
            if mp[:len(files[t])] == files[t] and len(mp) > len(files[t]):
                test_files.add(p); changed = True; break

def in_ranges(pos, ranges): return any(a <= pos <= b for a, b in ranges)

# ---- impl blocks
impls = []
for p in files:
    if p in test_files: continue
    mk = masked[p]; tr, _ = test_ranges(mk)
    for m in re.finditer(r'(?m)^[ \t]*(?:unsafe\s+)?impl\b[^{;]*\{', mk):
        if in_ranges(m.start(), tr): continue
        b = m.end() - 1; e = match_brace(mk, b)
        l0 = mk.count('\n', 0, m.start()) + 1; l1 = mk.count('\n', 0, e) + 1
        head = ' '.join(srcs[p][m.start():b].split())
        impls.append((l1 - l0 + 1, os.path.relpath(p, ROOT), l0, head))
big = sorted([x for x in impls if x[0] > LIMIT], reverse=True)
print(f'impl blocks over {LIMIT} lines: {len(big)}')
for x in big: print(f'  {x[0]:4}  {x[1]}:{x[2]}  {x[3]}')
runs = [x for x in impls if re.search(r'\bimpl\s+Run\b', x[3])]
print(f'impl Run blocks: {len(runs)}, lines {sum(x[0] for x in runs)}; largest: ' + ', '.join(f'{x[1]} ({x[0]})' for x in sorted(runs, reverse=True)[:5]))

# ---- Run's fields
for p in files:
    m = re.search(r'(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?struct\s+Run\b[^{;]*\{', masked[p])
    if m:
        e = match_brace(masked[p], m.end() - 1)
        body = masked[p][m.end():e]
        fields = re.findall(r'(?m)^\s*(pub(?:\([^)]*\))?\s+)?(\w+)\s*:', body)
        print(f'Run ({os.path.relpath(p, ROOT)}): {len(fields)} fields, {sum(1 for f in fields if f[0].strip())} with a visibility: ' + ', '.join(f[1] for f in fields))

# ---- import cycles
def split_tree(s):
    """Expands a use tree into paths (lists of segments)."""
    s = re.sub(r'\s+', '', s)
    def parse(s, prefix):
        res = []; depth = 0; cur = ''; items = []
        for ch in s:
            if ch == '{': depth += 1
            elif ch == '}': depth -= 1
            if ch == ',' and depth == 0: items.append(cur); cur = ''
            else: cur += ch
        if cur: items.append(cur)
        for it in items:
            if '{' in it:
                head, rest = it.split('{', 1); rest = rest[:-1]
                hp = [x for x in head.split('::') if x]
                res += parse(rest, prefix + hp)
            else:
                res.append(prefix + [x for x in it.split('::') if x])
        return res
    return parse(s, [])

edges = {}
for p, mp in files.items():
    if p in test_files: continue
    mk = masked[p]; tr, _ = test_ranges(mk)
    src = srcs[p]
    for m in re.finditer(r'(?m)^(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]*);', mk):
        if in_ranges(m.start(), tr): continue
        tree = re.sub(r'\s+as\s+\w+', '', src[m.start(1):m.end(1)])
        for path in split_tree(tree):
            if not path: continue
            if path[0] == 'crate': absp = []; rest = path[1:]
            elif path[0] in ('super', 'self'):
                absp = list(mp); rest = path
                while rest and rest[0] in ('super', 'self'):
                    if rest[0] == 'super': absp = absp[:-1]
                    rest = rest[1:]
            elif tuple(mp) + (path[0],) in mods: absp = list(mp); rest = path
            else: continue  # external crate
            full = tuple(absp + rest)
            # longest prefix that is a module file
            tgt = None
            for k in range(len(full), -1, -1):
                if full[:k] in mods: tgt = mods[full[:k]]; break
            if tgt and tgt != p and tgt not in test_files:
                edges.setdefault(p, set()).add(tgt)

# Tarjan SCC
index = {}; low = {}; st = []; on = set(); sccs = []; c = [0]
sys.setrecursionlimit(10000)
def strong(v):
    index[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index: strong(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(comp)
for v in list(files):
    if v not in index: strong(v)
def rel(p): return os.path.relpath(p, ROOT)
def is_parent_child(a, b):
    A, B = files[a], files[b]
    return (len(B) == len(A) + 1 and B[:len(A)] == A) or (len(A) == len(B) + 1 and A[:len(B)] == B)
two = sorted({tuple(sorted((rel(a), rel(b)))) for a in edges for b in edges[a] if a in edges.get(b, ())})
pc = [x for x in two if is_parent_child(os.path.join(ROOT, x[0]), os.path.join(ROOT, x[1]))]
print(f'import cycles (strongly connected groups of files): {len(sccs)}; files in them: {sum(len(s) for s in sccs)}')
for s in sorted(sccs, key=len, reverse=True):
    print(f'  {len(s)} files: ' + ' '.join(sorted(rel(x) for x in s)))
print(f'two-file loops: {len(two)} (of which parent<->own child module: {len(pc)})')
for x in two: print('  ' + ' <-> '.join(x) + ('   [parent/child]' if x in pc else ''))
# cycles ignoring the edges from a module to its own child (re-exports)
edges2 = {a: {b for b in bs if not (files[b][:len(files[a])] == files[a] and len(files[b]) > len(files[a]))} for a, bs in edges.items()}
index.clear(); low.clear(); st.clear(); on.clear(); sccs2 = []; c[0] = 0
def strong2(v):
    index[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges2.get(v, ()):
        if w not in index: strong2(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs2.append(comp)
for v in list(files):
    if v not in index: strong2(v)
print(f'import cycles not counting a module\'s imports from its own descendants: {len(sccs2)}')
for s in sorted(sccs2, key=len, reverse=True):
    print(f'  {len(s)} files: ' + ' '.join(sorted(rel(x) for x in s)))
