package io.sparkcer.engine.pcea

/**
 * The witnesses of a set of runs ([[SharedEvents]]): enough of their positions at the tracked labels to tell, for any
 * positions other runs hold, whether some run of the set avoids them all, and how late the latest such run starts.
 *
 * A witness is (start, p1, ..., pD): the positions of a run at its state's D tracked labels (-1 where it took none),
 * and the latest start among the set's runs with those positions. A set keeps a representative family of them, built
 * by branching: the witness that starts latest, and for each of its positions p, recursively, the family of the
 * witnesses without p, one position fewer to rule out.
 * Then for any `budget` positions F, the latest start among the set's runs that avoid F is the latest among the
 * family's witnesses that avoid F: if the latest witness meets F at p, the runs that avoid F avoid p, and the branch
 * without p represents them for the rest of F. The family holds at most Σ_{k ≤ budget} D^k witnesses, a constant of
 * the automaton, and the family of a union is the family of the families' union: so a node keeps one for its product
 * and one for its union subtree, each made in constant time from its children's.
 *
 * A family is stored in a `long` array at an offset: its size, then its witnesses, each `width(q)` longs. A state
 * with no tracked label stores none: its runs' only witness is their max-start, which the node holds already.
 */
final class DisjointRunWitnesses(pcea: Pcea, shared: SharedEvents) {
  private val states = 0 until pcea.stateCount
  private val targets = pcea.transitions.map(_.target).toArray
  /** Per state: longs per witness (its start and D positions), and the positions other runs may hold against it. */
  private val widths = states.map(q => 1 + shared.tracked(q).length).toArray
  private val budgets = states.map(shared.budget).toArray
  private val sources = shared.sources.map(_.toArray).toArray
  /** Longs a family takes in a node, whatever its state: the largest family of any. */
  val length: Int = 1 + states.map(q => shared.capacity(q) * widths(q)).max

  def tracks(state: Int): Boolean = widths(state) > 1
  def width(state: Int): Int = widths(state)
  def stateOf(transition: Int): Int = targets(transition)

  // The witnesses a family is chosen from, and the greedy choice's candidates per level of its recursion.
  private val most = (pcea.transitions.map(t => t.children.map(c => shared.capacity(c)).product).max max 1) max
    states.map(q => 3 * shared.capacity(q)).max
  private var candidates = new Array[Long](most * widths.max)
  private val levels = Array.fill(budgets.max + 1)(new Array[Int](most))

  // ---- Making families ---------------------------------------------------------------------------------------

  /**
   * The family of a node's product: `transition`'s event at `position` (window value `start`) above one run of each
   * tree in `children` (the first `arity`), over every choice of their witnesses whose positions differ, written at
   * `out(o)`. Returns the latest start of such a choice, or Long.MinValue when every choice reads an event twice.
   */
  def product(transition: Int, position: Long, start: Long, children: Array[Long], arity: Int, nodes: RunNodes,
      out: Array[Long], o: Int): Long = {
    val q = targets(transition)
    count = 0
    combined.size = 0
    combine(transition, position, start, children, arity, nodes, 0)
    represent(widths(q), budgets(q), out, o)
  }

  /** The candidates gathered so far, by [[combine]] or [[union]]. */
  private var count = 0
  /** The witness chosen per child slot, and the positions they hold, for [[combine]]. */
  private val chosen = new Array[Int](pcea.transitions.map(_.children.length).maxOption.getOrElse(0) max 1)
  private val combined = new Positions

  private def combine(transition: Int, position: Long, start: Long, children: Array[Long], arity: Int,
      nodes: RunNodes, slot: Int): Unit = {
    if (slot == arity) {
      val w = widths(targets(transition))
      if ((count + 1) * w > candidates.length) candidates = java.util.Arrays.copyOf(candidates, 2 * (count + 1) * w)
      val at = count * w
      var latest = start
      var c = 0
      while (c < arity) { latest = math.min(latest, startOf(children(c), chosen(c), nodes)); c += 1 }
      candidates(at) = latest
      val from = sources(transition)
      var k = 0
      while (k < from.length) {
        val (s, i) = from(k)
        candidates(at + 1 + k) =
          if (s == SharedEvents.Own) position
          else if (s == SharedEvents.Absent) -1L
          else positionOf(children(s), chosen(s), i, nodes)
        k += 1
      }
      count += 1
    } else {
      val tree = children(slot)
      val q = nodes.stateOf(tree)
      val size = if (tracks(q)) nodes.rows(nodes.subtreeFamily(tree)).toInt else 1
      var k = 0
      while (k < size) {
        val mark = combined.size
        if (!tracks(q) || combined.addAll(
            nodes.rows, nodes.subtreeFamily(tree) + 1 + k * widths(q) + 1, widths(q) - 1)) {
          chosen(slot) = k
          combine(transition, position, start, children, arity, nodes, slot + 1)
        }
        combined.size = mark
        k += 1
      }
    }
  }

  private def startOf(tree: Long, k: Int, nodes: RunNodes): Long = {
    val q = nodes.stateOf(tree)
    if (tracks(q)) nodes.rows(nodes.subtreeFamily(tree) + 1 + k * widths(q)) else nodes.maxStart(tree)
  }

  private def positionOf(tree: Long, k: Int, i: Int, nodes: RunNodes): Long =
    nodes.rows(nodes.subtreeFamily(tree) + 1 + k * widths(nodes.stateOf(tree)) + 1 + i)

  /**
   * The family of a union subtree of state `q`: of the node's product family at `product` and its union children's
   * subtree families at `left` and `right` (each -1 for none), all in `rows`, written at `rows(o)`.
   */
  def union(q: Int, rows: Array[Long], product: Int, left: Int, right: Int, o: Int): Unit = {
    val w = widths(q)
    count = 0
    gather(rows, product, w)
    gather(rows, left, w)
    gather(rows, right, w)
    represent(w, budgets(q), rows, o)
  }

  private def gather(rows: Array[Long], family: Int, w: Int): Unit = if (family >= 0) {
    val size = rows(family).toInt
    System.arraycopy(rows, family + 1, candidates, count * w, size * w)
    count += size
  }

  /** The representative family of the `count` candidates, written at `out(o)`; returns the latest start. */
  private def represent(w: Int, budget: Int, out: Array[Long], o: Int): Long = {
    out(o) = 0
    var k = 0
    while (k < count) { levels(0)(k) = k; k += 1 }
    branch(0, count, budget, w, out, o)
    if (out(o) == 0) Long.MinValue else out(o + 1)
  }

  /** Adds the latest of the candidates `levels(depth)(0 until size)`, then, per position of it, the family without it. */
  private def branch(depth: Int, size: Int, budget: Int, w: Int, out: Array[Long], o: Int): Unit = if (size > 0) {
    val level = levels(depth)
    var best = level(0)
    var k = 1
    while (k < size) { if (candidates(level(k) * w) > candidates(best * w)) best = level(k); k += 1 }
    add(best, w, out, o)
    if (budget > 0) {
      var i = 1
      while (i < w) {
        val p = candidates(best * w + i)
        if (p >= 0) {
          val next = levels(depth + 1)
          var n = 0
          k = 0
          while (k < size) {
            if (!holds(level(k), w, p)) { next(n) = level(k); n += 1 }
            k += 1
          }
          branch(depth + 1, n, budget - 1, w, out, o)
        }
        i += 1
      }
    }
  }

  private def holds(candidate: Int, w: Int, position: Long): Boolean = {
    var i = 1
    while (i < w) { if (candidates(candidate * w + i) == position) return true; i += 1 }
    false
  }

  /** Adds a candidate to the family unless a witness with its positions is there already (it started as late or later). */
  private def add(candidate: Int, w: Int, out: Array[Long], o: Int): Unit = {
    val size = out(o).toInt
    var k = 0
    while (k < size) {
      if (java.util.Arrays.equals(
          out, o + 1 + k * w + 1, o + 1 + (k + 1) * w, candidates, candidate * w + 1, (candidate + 1) * w))
        return
      k += 1
    }
    System.arraycopy(candidates, candidate * w, out, o + 1 + size * w, w)
    out(o) = size + 1
  }

  // ---- Choosing among them -------------------------------------------------------------------------------------

  /**
   * The families a [[viable]] check chooses from, one witness each: per family, its array, offset and width. A state
   * with no tracked label has one witness, its max-start, which `untracked` holds (a family of one, at 2f).
   */
  private var checked = new Array[Array[Long]](8)
  private var offsets = new Array[Int](8)
  private var checkedWidths = new Array[Int](8)
  private var untracked = new Array[Long](16)
  private var families = 0
  private val holding = new Positions

  /** Starts a [[viable]] check, which rules out `fixed` (the first `size`): positions a valuation holds already. */
  def check(fixed: Array[Long], size: Int): Unit = {
    families = 0
    holding.size = 0
    var k = 0
    while (k < size) { holding.hold(fixed(k)); k += 1 }
  }

  /** Adds a family to choose from: the product (`product`) or the union subtree of node `n`. */
  def choose(nodes: RunNodes, n: Long, product: Boolean): Unit = {
    if (families == checked.length) {
      checked = java.util.Arrays.copyOf(checked, 2 * families)
      offsets = java.util.Arrays.copyOf(offsets, 2 * families)
      checkedWidths = java.util.Arrays.copyOf(checkedWidths, 2 * families)
      untracked = java.util.Arrays.copyOf(untracked, 4 * families)
    }
    val q = nodes.stateOf(n)
    if (tracks(q)) {
      checked(families) = nodes.rows
      offsets(families) = if (product) nodes.productFamily(n) else nodes.subtreeFamily(n)
    } else {
      untracked(2 * families) = 1
      untracked(2 * families + 1) = nodes.maxStart(n)
      checked(families) = untracked
      offsets(families) = 2 * families
    }
    checkedWidths(families) = widths(q)
    families += 1
  }

  /** Whether one witness of each family chosen since [[check]] starts after `threshold`, all positions distinct. */
  def viable(threshold: Long): Boolean = search(0, threshold)

  private def search(f: Int, threshold: Long): Boolean = f == families || {
    val (array, o, w) = (checked(f), offsets(f), checkedWidths(f))
    val size = array(o).toInt
    var found = false
    var k = 0
    while (!found && k < size) {
      val at = o + 1 + k * w
      if (array(at) > threshold) {
        val mark = holding.size
        found = holding.addAll(array, at + 1, w - 1) && search(f + 1, threshold)
        holding.size = mark
      }
      k += 1
    }
    found
  }

  /** Distinct positions, as a stack: a choice adds its witness's and takes them back. */
  private final class Positions {
    var size = 0
    private var held = new Array[Long](16)

    /** Adds the positions `from(at until at + n)` (-1: none) unless one is held already; false if so (none added). */
    def addAll(from: Array[Long], at: Int, n: Int): Boolean = {
      val mark = size
      var i = 0
      while (i < n) {
        val p = from(at + i)
        if (p >= 0) {
          if (holds(p)) { size = mark; return false }
          hold(p)
        }
        i += 1
      }
      true
    }

    /** Adds a position, unless it is held already. */
    def hold(p: Long): Unit = if (!holds(p)) {
      if (size == held.length) held = java.util.Arrays.copyOf(held, 2 * size)
      held(size) = p
      size += 1
    }

    private def holds(p: Long): Boolean = {
      var j = 0
      while (j < size) { if (held(j) == p) return true; j += 1 }
      false
    }
  }
}
