"""The binary min-heap with lazy deletion that the CPU Dijkstras share (numba, inlined).

Two parallel arrays (keys, vertices) and a size the caller keeps: a vertex may sit in the heap
more than once, and the caller skips stale entries when it pops them. That keeps the heap plain
arrays, which is what makes it fast under numba.
"""

from __future__ import annotations

import numba


@numba.njit(inline="always")
def heap_push(keys, vertices, size, key, vertex):
    """Sift (key, vertex) up from slot ``size``; returns the new size."""
    j = size
    while j > 0:
        parent = (j - 1) // 2
        if keys[parent] <= key:
            break
        keys[j] = keys[parent]
        vertices[j] = vertices[parent]
        j = parent
    keys[j] = key
    vertices[j] = vertex
    return size + 1


@numba.njit(inline="always")
def heap_pop(keys, vertices, size):
    """Remove the minimum; returns (key, vertex, new size). The heap must not be empty."""
    key = keys[0]
    vertex = vertices[0]
    size -= 1
    last_key = keys[size]
    last_vertex = vertices[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= last_key:
            break
        keys[i] = keys[child]
        vertices[i] = vertices[child]
        i = child
    keys[i] = last_key
    vertices[i] = last_vertex
    return key, vertex, size
