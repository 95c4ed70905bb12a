"""Integer power series for pool sums: the closed forms behind one-number readings.

A pool read as one number (a sum or a count) whose dice each contribute a whole number
has a generating function: one die is ``d(z) = sum of P(value v) z^v``, and ``n`` such
dice are ``d(z)^n``. Computing that power directly, by the recurrence of J. C. P. Miller
for the power of a series (``k d0 c_k = sum over j of ((n + 1) j - k) d_j c_(k-j)``), takes
``len(d)`` steps per coefficient: ``100d6`` is 500 short sums, not a hundred convolutions.

An exploding die that adds to the reading each time it explodes (``10d10x10cs>=8``: a ten
is a success and another die) is the rational function ``s(z) / (t - e(z))``: ``s`` the
faces that stop, ``e`` the faces that explode (as whole-number weights), ``t`` the number
of faces. Its coefficients follow ``d_k = s_k / t + sum over i of e_i / t * d_(k-i)``, to
any degree: the chain is exact to any depth, and a pool of ``n`` such dice grows by
``degree x degree`` steps, not by the depth times the dice times the states.

Everything is kept in whole numbers. A plain die's weights are over ``t`` (``n`` dice:
over ``t^n``). An exploding die's coefficient of ``z^k`` has a denominator dividing
``t^(k+1)`` (each of its at most ``k`` explosions costs a factor ``t``), so the series
scaled as ``D_k = d_k t^(k+1)`` is whole, and ``[z^K] D^n = t^(n+K) [z^K] d^n``: numbers
grow with the outcome, not with the pool times the depth.
"""

from __future__ import annotations

__all__ = ["exploding_series", "power", "product"]


def power(coefficients: list[int], n: int, terms: int, charge: object = None) -> list[int]:
    """The first ``terms`` coefficients of ``p(z)^n`` for a whole-number series ``p`` with
    ``p[0] != 0`` (Miller's recurrence; each division is exact because every coefficient
    of an integer series' power is an integer). ``charge(steps)`` is told the work before
    it is done."""
    p = coefficients
    if terms <= 0:
        return []
    if n == 0:  # no dice: the empty sum, whatever one die's series is (even none: `0d%x<=20`)
        return [1] + [0] * (terms - 1)
    p0 = p[0]
    degree = len(p) - 1
    if charge is not None:
        charge(terms * min(degree, terms))  # type: ignore[operator]
    out = [p0**n]
    for k in range(1, terms):
        top = min(k, degree)
        total = 0
        for j in range(1, top + 1):
            pj = p[j]
            if pj:
                total += ((n + 1) * j - k) * pj * out[k - j]
        out.append(total // (k * p0))
    return out


def product(a: list[int], b: list[int], terms: int) -> list[int]:
    """The first ``terms`` coefficients of ``a(z) b(z)``."""
    out = [0] * min(terms, len(a) + len(b) - 1)
    for i, x in enumerate(a[:terms]):
        if x:
            for j, y in enumerate(b[: terms - i]):
                out[i + j] += x * y
    return out


def exploding_series(stop: dict[int, int], go: dict[int, int], total: int, terms: int) -> list[int]:
    """The first ``terms`` coefficients of one exploding die, scaled: ``D_k = d_k t^(k+1)``
    where ``d = s / (t - e)`` (``stop`` = s and ``go`` = e as value → weight, every value of
    ``go`` at least 1, ``t`` = ``total``)."""
    # D_k = s_k t^k + sum over i >= 1 of e_i t^(i-1) D_(k-i)
    powers = [1]
    for _ in range(terms):
        powers.append(powers[-1] * total)
    go_terms = sorted(go.items())
    out: list[int] = []
    for k in range(terms):
        value = stop.get(k, 0) * powers[k]
        for i, w in go_terms:
            if i > k:
                break
            value += w * powers[i - 1] * out[k - i]
        out.append(value)
    return out
