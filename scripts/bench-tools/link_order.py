#!/usr/bin/env python3
"""Writes the link order of the release server's hot code (config/hot-functions.order): the functions a
callgrind profile of the server under load ran, most instructions first, that the linker can place without
pulling in much else. A function in a section of its own moves alone; one in an object compiled without
function sections (the packages vmhost depends on) moves with its object's whole code, which is fine for a
small object; the standard library's `Swift.o` and a few other archives hold hundreds of KB in one section,
which stays where it is.

Usage: link_order.py CALLGRIND_OUT[,CALLGRIND_OUT...] LINK_MAP BINARY > config/hot-functions.order
       link_order.py --check ORDER_FILE BINARY
CALLGRIND_OUT: a profile taken with --demangle=no; several, comma-separated: the first's functions come first,
then those only the others ran (e.g. the server without, then with the Redis journal: the journal's code follows
the hot code of a server without it, which keeps that one's pages as they were); LINK_MAP: lld's -Map output of
BINARY's link. --check fails
unless BINARY was linked in that order: most listed functions present, and together (spanning at most twice
their size). Standard library only.
"""
import collections
import re
import subprocess
import sys


def executed(profile):
    """Self instruction counts by (mangled) function name, 0 for functions only seen being called."""
    names, cost = {}, collections.Counter()
    current, after_call = None, False

    def name(field):
        match = re.match(r"\((\d+)\)(?: (.*))?", field)
        if not match:
            return field
        if match.group(2):
            names[match.group(1)] = match.group(2)
        return names.get(match.group(1), field)

    with open(profile) as lines:
        for line in lines:
            if line.startswith("fn="):
                current = name(line[3:].strip())
                cost[current] += 0
            elif line.startswith("cfn="):
                cost[name(line[4:].strip())] += 0
            elif line.startswith("calls="):
                after_call = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_call:  # the call's inclusive cost, not this function's own
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) > 1 and current is not None:
                    cost[current] += int(fields[1])
    return cost


# An input section larger than this is left where it is (its functions are not listed).
LARGEST_SECTION_MOVED = 64 * 1024


def unplaceable(link_map):
    """Symbols the linker could move only with a large section around them (LARGEST_SECTION_MOVED)."""
    with open(link_map) as lines:
        header = next(lines)
        out_column, in_column, symbol_column = header.index("Out"), header.index("In "), header.index("Symbol")
        section, large_input, found = None, False, set()
        for line in lines:
            if len(line) <= out_column:
                continue
            if line[out_column] != " ":
                section = line[out_column:].strip()
            elif line[in_column] != " ":
                large_input = int(line.split()[2], 16) > LARGEST_SECTION_MOVED
            elif section == ".text" and large_input:
                found.add(line[symbol_column:].strip())
    return found


def functions(binary):
    """The functions `binary` defines, by name: (address, size); of names defined twice, one of them."""
    listing = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True, check=True)
    return {fields[3]: (int(fields[0], 16), int(fields[1], 16))
            for fields in (line.split() for line in listing.stdout.splitlines())
            if len(fields) == 4 and fields[2] in "tTwW"}


def check(order_file, binary):
    with open(order_file) as lines:
        listed = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    defined = functions(binary)
    placed = sorted(defined[name] for name in listed if name in defined)
    if not listed or not placed:
        sys.exit(f"link order: none of the {len(listed)} functions of {order_file} is in {binary}")
    span = placed[-1][0] + placed[-1][1] - placed[0][0]
    size = sum(length for _, length in placed)
    print(f"link order: {len(placed)} of {len(listed)} listed functions in the binary, "
          f"{size // 1024} KB of code within {span // 1024} KB")
    if len(placed) < 0.8 * len(listed):
        sys.exit("link order: most listed functions are gone; run scripts/generate-link-order")
    if span > 2 * size:
        sys.exit("link order: the listed functions are not together; was the binary linked with the order?")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    if sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
        return
    profiles, link_map, binary = sys.argv[1:4]
    defined, fixed = functions(binary), unplaceable(link_map)
    hot, ran = [], set()
    for profile in profiles.split(","):
        cost = executed(profile)
        new = (name for name in cost if name not in ran and name in defined and name not in fixed)
        hot += sorted(new, key=lambda n: (-cost[n], n))
        ran.update(cost)
    print("# The release server's hot functions, in link order (Package.swift: hotCodeLayout).")
    print("# Written by scripts/generate-link-order from a profile of the server under load; do not edit.")
    print(f"# {len(hot)} functions; {sum(1 for n in ran if n in fixed)} more ran, in sections too large to move.")
    for name in hot:
        print(name)


if __name__ == "__main__":
    main()
