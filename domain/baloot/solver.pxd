# C types for the compiled solver (Cython reads this beside solver.py; the Python module is unchanged and
# runs as written where nothing is compiled): the search's integers as C integers and its methods as C calls.
cimport cython


cdef class Solver:
    cdef public int trump
    cdef public bint closed
    cdef public bint undertrump
    cdef public list points, strength, suits, bytes, strongest, richest, poorest
    cdef public dict table
    cdef public long nodes
    cdef public long limit
    cdef public object setting, low, high
    cdef public int took
    cdef public int mode

    @cython.locals(trump=int, plain=long, led=int, follow=long, higher=long, trumps=long, top=int)
    cpdef long _legal(self, long hand, tuple trick, int win, int n)

    cpdef bint _exempt(self, tuple trick, int win, int n)

    @cython.locals(win=int, i=int)
    cpdef int _win(self, tuple trick)

    cpdef bint _beats(self, int card, int best)

    @cython.locals(n=int, winner=int, gain=long, pts=list)
    cpdef long _after(self, list hands, int leader, tuple trick, int win, int card, int left, int took, long alpha,
                      long beta)

    @cython.locals(n=int, i=int, c=long, card=int, winner=int, gain=long, pts=list)
    cpdef long _last(self, list hands, int leader, tuple trick, int win, int took)

    @cython.locals(n=int, lo=long, hi=long, first=int, held=long, most=long, least=long, swept=long, a0=long,
                   b0=long, seat=int, hand=long, legal=long, ours=bint, best=long, chose=int, card=int, v=long,
                   b=list)
    cpdef long _search(self, list hands, int leader, tuple trick, int win, int left, int took, long alpha,
                       long beta)

    @cython.locals(out=long, u=int, prev=int, c=int, pts=list)
    cpdef long _distinct(self, long legal, long held)

    @cython.locals(top=int, c=int, out=list)
    cpdef list _order(self, long legal, tuple trick, int win, int n, int first=*)
