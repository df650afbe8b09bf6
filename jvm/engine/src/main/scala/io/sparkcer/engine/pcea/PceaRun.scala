package io.sparkcer.engine.pcea

import java.io.{DataInput, DataOutput}

import io.sparkcer.engine.eval.Work

/**
 * Algorithm 1 of the PCEA paper (§5) over one stream: per event, FireTransitions, then UpdateIndices, then
 * Enumerate at the new nodes of final states. The runs waiting to be joined are indexed by H[transition, child
 * state, key] ([[KeyIndex]]), each entry a union tree of DS_w ([[RunNodes]]), so an event finds the runs it joins by
 * one lookup per child state, whatever their number: no partial match is built per pair of events. Update time is
 * logarithmic in the window, and the valuations come out with output-linear delay.
 *
 * Windows (the paper's sliding window, §5): a valuation is output when its first event's window value is above the threshold of the
 * event being read (the engine's: the run that started at or below it is out). The paper counts positions (then the
 * threshold is i - w - 1); any non-decreasing value works, a time column included.
 *
 * Memory: the paper never drops index entries, so its memory grows with the stream. Here the nodes made more than a window ago are freed as
 * the threshold passes them ([[RunNodes.reclaim]]), and the index's entries whose runs have all left the window are
 * purged as new keys come ([[KeyIndex.purge]]); both at a constant cost per node or entry, amortised, without a walk
 * over the live runs.
 *
 * Shared events ([[SharedEvents]]): where two subtrees of a run may read one event, the runs carry witnesses of the
 * positions they read such events at ([[DisjointRunWitnesses]]), a transition makes a node only if some choice of its
 * children's runs reads distinct events, and the enumeration enters a union subtree only if some valuation in it does,
 * and chooses a node only if some valuation through it does: no valuation is enumerated to be dropped. (A node whose
 * own runs all read an event twice, under one whose subtree has others, is a step without output; PceaComplexitySuite
 * counts the steps per output.)
 *
 * Unselected events ([[PceaPlan.latestOnly]]): at a join whose runs under one key differ only in an event no selected
 * variable binds, the index keeps the latest run alone ([[KeyIndex.replace]]), or the latest of each group that read
 * one entry of the runs before it ([[KeyIndex.latest]]), which stands for the group's earlier ones: they would give
 * its rows again, to be dropped after enumeration.
 *
 * Work ([[Work]]): each transition whose guard an event passes, each lookup and insertion in the index, each node a
 * union copies, and each node the enumeration visits (live or not) is counted.
 */
final class PceaRun[E](pcea: Pcea, reader: PceaReader[E], work: Work = new Work,
    shared: SharedEvents = SharedEvents.none, latestOnly: Map[(Int, Int), Boolean] = Map.empty) {
  private val transitions = pcea.transitions.toArray
  private val arity = transitions.map(_.children.length)
  private val finals = pcea.finals.toArray.sorted
  private val consumers = pcea.consumers.map(_.toArray).toArray
  private val indexKeys = pcea.indexKeys.map(_.toArray).toArray
  /** The joins, each a (transition, child slot): join j of transition e is `firstJoin(e) + slot`. */
  private val firstJoin = transitions.scanLeft(0)(_ + _.children.length)
  private val joins = for ((t, e) <- transitions.zipWithIndex; slot <- t.children.indices) yield (e, slot)
  /** Per state, the joins of its consumers, in the order of [[Pcea.consumers]]. */
  private val consumerJoins = consumers.map(_.map { case (e, slot) => firstJoin(e) + slot })
  private val witnesses = if (shared.isEmpty) null else new DisjointRunWitnesses(pcea, shared)
  /**
   * Per transition, whether the one index entry its nodes go to may change them in place ([[RunNodes.union]]): its
   * target has one consumer, and is not final (a final state's new nodes are enumerated after the indices are updated).
   */
  private val owned = transitions.map(t => consumers(t.target).length == 1 && !pcea.finals(t.target))
  private val nodes =
    new RunNodes(arity.maxOption.getOrElse(0), witnesses, work, grouped = latestOnly.values.exists(!_))
  /** Per transition, whether its runs' events must be checked distinct: it makes or joins runs that carry witnesses. */
  private val weighed = transitions.map(t =>
    witnesses != null &&
      (witnesses.tracks(t.target) || t.children.exists(witnesses.tracks)))
  /** Per label, whether its events may be read twice in a run: the positions an enumeration rules out. */
  private val sharedLabel: Array[Boolean] = {
    val labels = shared.labels
    Array.tabulate((labels ++ transitions.flatMap(_.labels)).maxOption.fold(0)(_ + 1))(labels)
  }
  /** A new node's product witnesses, made before the node (a transition whose runs all read an event twice makes none). */
  private val family = if (witnesses == null) null else new Array[Long](witnesses.length)
  /** H, as one table per join (transition, child slot) from the key to the union tree of the runs indexed there. */
  private val index = Array.fill(joins.length)(new KeyIndex)
  /**
   * Per join, how its entries keep the runs indexed there: all of them in a union tree ([[PceaRun.Union]]), or the
   * latest alone ([[PceaRun.ByKey]]) or per group ([[PceaRun.ByGroup]]), see [[PceaPlan.latestOnly]].
   */
  private val keeping =
    joins.map(j => latestOnly.get(j).fold(PceaRun.Union)(if (_) PceaRun.ByKey else PceaRun.ByGroup)).toArray
  /**
   * Per join that keeps the latest run per group, per transition into its child state: the groups of its runs, each
   * its outgoing and incoming keys ([[KeyIndex.group]]). Null elsewhere.
   */
  private val groups: Array[Array[KeyIndex]] = joins.indices.map { j =>
    val child = transitions(joins(j)._1).children(joins(j)._2)
    if (keeping(j) != PceaRun.ByGroup) null
    else transitions.map(t => if (t.target == child) new KeyIndex else null)
  }.toArray
  /**
   * The keys of the event being read, per extractor, each read once: the transitions that join on one attribute, and
   * the consumers of the nodes the event makes, ask for it again. `keyRead(x)` is the number of the event whose key
   * `keys(x)` holds.
   */
  private val extractors = (transitions.flatMap(_.joins) ++ indexKeys.flatten).maxOption.fold(0)(_ + 1)
  private val keys = new Array[AnyRef](extractors)
  private val keyRead = Array.fill(extractors)(-1L)
  private var reads = 0L
  /** The runs a transition joins, gathered before its node is made (a transition that fails to join makes nothing). */
  private val joined = new Array[Long](arity.maxOption.getOrElse(0))
  /** N: the nodes made at the current event, in the order of their transitions (`made` of them). */
  private var created = new Array[Long](math.max(1, transitions.length))
  private var made = 0
  private var threshold = Long.MinValue
  private val valuation = new Valuation
  /** Whether the receiver of the valuations wants more (ANY and LIMIT stop early). */
  private var open = true

  /** The transitions into final states: those that complete a match. */
  private val completers = transitions.indices.filter(e => pcea.finals(transitions(e).target)).toArray
  private val completes = transitions.map(t => pcea.finals(t.target))
  /** Whether the event [[read]] last made a run in a final state: a match ended at it (in the window, its runs distinct). */
  var completed = false
  /**
   * Per join of a completing transition, the events that may make runs of its child state: per transition into that
   * state, its guard and the extractor of the key its runs are indexed under there. Empty for the other joins.
   */
  private val makerGuards = new Array[Array[Int]](joins.length)
  private val makerKeys = new Array[Array[Int]](joins.length)
  for (j <- joins.indices) {
    val (e, slot) = joins(j)
    val child = transitions(e).children(slot)
    val makers = if (!pcea.finals(transitions(e).target) || witnesses != null) IndexedSeq.empty
    else transitions.indices.filter(p => transitions(p).target == child)
    makerGuards(j) = makers.map(p => transitions(p).guard).toArray
    makerKeys(j) = makers.map(p => indexKeys(p)(consumers(child).indexOf((e, slot)))).toArray
  }
  private val notedJoins = joins.indices.filter(j => makerGuards(j).nonEmpty).toArray
  /**
   * Per join of a completing transition, the keys of the events given to [[note]] (kept unread by the caller) that may
   * make runs of its child state, each with the latest such event's window value; null for the other joins, and until
   * a first key is noted.
   */
  private val kept = new Array[KeyIndex](joins.length) // made when first noted: with PARTITION BY, a run per key

  /**
   * Notes an event that the caller keeps unread for now ([[PceaPartitionRun]]), of window value `value`: under each key
   * under which a run it may make would be joined by a completing transition. Then [[mayComplete]] knows of the runs
   * such events may make without their being made: a hash insertion per event, as a hash join's build side.
   */
  def note(event: E, value: Long, threshold: Long): Unit = {
    var k = 0
    while (k < notedJoins.length) {
      val j = notedJoins(k)
      val (guards, extractors) = (makerGuards(j), makerKeys(j))
      var m = 0
      while (m < guards.length) {
        if (reader.passes(guards(m), event)) {
          val key = reader.key(extractors(m), event)
          if (key != null) {
            work.indexProbes += 1
            if (kept(j) == null) kept(j) = new KeyIndex
            kept(j).note(key, value, threshold)
          }
        }
        m += 1
      }
      k += 1
    }
  }

  /**
   * Whether the event, not read yet, may complete a match: it passes the guard of a completing transition that finds,
   * for each of its child states, a run in the window under its key, made already (in the index) or that an event
   * [[note]]d may make. If not, no match ends at it, whatever the events read before it: it needs none of them read.
   * A hash join's probe per child state.
   *
   * Where two subtrees of a run may read one event ([[SharedEvents]]), every event that passes a completing guard may
   * complete a match, as before the keys were checked: there a key found is often a run that pairs only with runs of
   * its own events (a self-join's), so the check would mostly send the events kept to be read anyway, each noted
   * first (PceaComplexitySuite's self-join without matches: 5.10 update steps per event at 100T, 4.80 without it).
   */
  def mayComplete(event: E, threshold: Long): Boolean = {
    var f = 0
    while (f < completers.length) {
      val e = completers(f)
      val t = transitions(e)
      if (reader.passes(t.guard, event)) {
        if (witnesses != null) return true
        var slot = 0
        while (slot < arity(e) && {
            val key = reader.key(t.joins(slot), event)
            val j = firstJoin(e) + slot
            work.indexProbes += 1
            key != null && (index(j).liveSlot(
              key, threshold) >= 0 || kept(j) != null && kept(j).liveSlot(key, threshold) >= 0)
          }) slot += 1
        if (slot == arity(e)) return true
      }
      f += 1
    }
    false
  }

  /** Index entries, for the bounded-memory tests and the metrics. */
  def indexSize: Int = {
    var entries = 0
    var j = 0
    while (j < index.length) { entries += index(j).size; j += 1 }
    entries
  }

  /** The nodes the arena holds: made within about a window, reachable or not. */
  def keptNodes: Long = nodes.size

  /** H[transition, slot, key], or [[RunNodes.Nil]]: for the tests that follow Algorithm 1's trace. */
  private[pcea] def indexed(transition: Int, slot: Int, key: AnyRef): Long =
    index(firstJoin(transition) + slot).get(key)
  private[pcea] def arena: RunNodes = nodes

  /** The most nodes one union has copied: for the tests of the union's cost. */
  private[pcea] def longestUnion: Int = nodes.longestUnion

  /**
   * Reads the event at `position`, whose window value is `start`; `threshold` is the window's (see the class comment),
   * non-decreasing. `emit` receives each valuation that ends at the event, as (position, label) pairs:
   * `emit(size, positions, labels)`, the arrays reused after the call; it returns false to stop the enumeration.
   * With `emit` null, the event is read only as context: its runs are kept, and nothing is enumerated. Returns how
   * many valuations were emitted.
   */
  def read(event: E, position: Long, start: Long, threshold: Long)(
      emit: (Int, Array[Long], Array[Int]) => Boolean): Int = {
    this.threshold = threshold
    reads += 1
    nodes.reclaim(threshold)
    made = 0
    prefetch(event)
    fireTransitions(event, position, start)
    completed = false
    var k = 0
    while (k < made) { if (completes(nodes.transition(created(k)))) completed = true; k += 1 }
    updateIndices(event)
    open = true
    var emitted = 0
    if (emit != null) {
      var f = 0
      while (f < finals.length) {
        var k = 0
        while (k < made && open) {
          if (transitions(nodes.transition(created(k))).target == finals(f)) emitted += enumerate(created(k), emit)
          k += 1
        }
        f += 1
      }
    }
    emitted
  }

  /** Forgets the runs that started at or below `threshold`, as the next event's own threshold would. */
  def expire(threshold: Long): Unit = {
    this.threshold = math.max(this.threshold, threshold)
    nodes.reclaim(this.threshold)
    index.foreach(_.purge(this.threshold))
    kept.foreach(k => if (k != null) k.purge(this.threshold))
    groups.foreach(g => if (g != null) g.foreach(k => if (k != null) k.purge(this.threshold)))
  }

  /** Every transition whose guard the event passes and whose every child state has a run in the window with its key. */
  private def fireTransitions(event: E, position: Long, start: Long): Unit = {
    var e = 0
    while (e < transitions.length) {
      val t = transitions(e)
      if (reader.passes(t.guard, event)) {
        work.transitions += 1
        var slot = 0
        var maxStart = start
        while (slot < arity(e) && {
            val key = keyOf(t.joins(slot), event)
            val join = index(firstJoin(e) + slot)
            work.indexProbes += 1
            val s = if (key == null) -1 else join.liveSlot(key, threshold)
            if (s >= 0) {
              joined(slot) = join.tree(s)
              maxStart = math.min(maxStart, join.maxStart(s))
            }
            s >= 0
          }) slot += 1
        if (slot == arity(e)) {
          if (!weighed(e)) keep(nodes.extend(e, position, maxStart, joined, arity(e)))
          else {
            val latest = witnesses.product(e, position, start, joined, arity(e), nodes, family, 0)
            if (latest > threshold)
              keep(nodes.extend(e, position, latest, joined, arity(e),
                  if (witnesses.tracks(t.target)) family else null))
          }
        }
      }
      e += 1
    }
  }

  /** The sum of the cells [[prefetch]] read: kept, so that the reads are not optimised away. */
  private var touched = 0L

  /**
   * Reads the first index cell of every lookup the event may make, and of every insertion of the nodes it may make,
   * before any is used. In a wide window the index outgrows the caches and each is a miss; issued together, with no
   * dependency between them, the misses overlap instead of coming one after the other, so an event waits for about
   * one, however many transitions it passes. Nothing changes but the caches. Tables small enough to stay in the
   * caches are left out ([[KeyIndex.outgrowsCaches]]): there the reads only add work (with them, chain2 with output
   * at T, 100,000 accounts, ran about 20 % slower; chain4 with output at 8T runs about 25 % faster).
   */
  private def prefetch(event: E): Unit = {
    var count = 0
    var e = 0
    while (e < transitions.length) {
      val t = transitions(e)
      if (reader.passes(t.guard, event)) {
        var slot = 0
        while (slot < arity(e)) {
          if (index(firstJoin(e) + slot).outgrowsCaches) {
            val key = keyOf(t.joins(slot), event)
            if (key != null) count = aim(firstJoin(e) + slot, key, count)
          }
          slot += 1
        }
        val at = consumerJoins(t.target)
        var c = 0
        while (c < at.length) {
          if (index(at(c)).outgrowsCaches) {
            val key = keyOf(indexKeys(e)(c), event)
            if (key != null) count = aim(at(c), key, count)
          }
          c += 1
        }
      }
      e += 1
    }
    // The reads, one after the other with nothing in between: their misses overlap.
    var sum = 0L
    var k = 0
    while (k < count) { sum += index(aimedJoin(k)).touch(aimedCell(k)); k += 1 }
    touched += sum
  }

  /** The cells [[prefetch]] reads: per read, the join and the cell. */
  private var aimedJoin = new Array[Int](8)
  private var aimedCell = new Array[Int](8)

  private def aim(join: Int, key: AnyRef, count: Int): Int = {
    if (count == aimedJoin.length) {
      aimedJoin = java.util.Arrays.copyOf(aimedJoin, 2 * count)
      aimedCell = java.util.Arrays.copyOf(aimedCell, 2 * count)
    }
    aimedJoin(count) = join
    aimedCell(count) = index(join).home(key)
    count + 1
  }

  /** Adds a node made at the event to N. */
  private def keep(node: Long): Unit = {
    if (made == created.length) created = java.util.Arrays.copyOf(created, made * 2)
    created(made) = node
    made += 1
  }

  /** Extractor `extractor`'s key on the event being read. */
  private def keyOf(extractor: Int, event: E): AnyRef = {
    if (keyRead(extractor) != reads) {
      keys(extractor) = reader.key(extractor, event)
      keyRead(extractor) = reads
    }
    keys(extractor)
  }

  /**
   * The new nodes, where the transitions that join their states will look for them: after every transition fired,
   * so that an event never joins itself.
   */
  private def updateIndices(event: E): Unit = {
    var k = 0
    while (k < made) {
      val n = created(k)
      val producer = nodes.transition(n)
      val at = consumerJoins(transitions(producer).target)
      var c = 0
      while (c < at.length) {
        val key = keyOf(indexKeys(producer)(c), event)
        if (key != null) {
          work.indexProbes += 1
          val j = at(c)
          keeping(j) match {
            case PceaRun.Union => index(j).add(key, n, nodes, threshold, owned(producer))
            case PceaRun.ByKey => index(j).replace(key, n, nodes, threshold)
            case _ =>
              work.indexProbes += 1
              val group = groupOf(j, producer, key, keyOf(transitions(producer).joins(0), event), n, nodes.maxStart(n))
              index(j).latest(key, n, group, nodes, threshold)
          }
        }
        c += 1
      }
      k += 1
    }
  }

  /**
   * Enumerate (Thm 5.2): each valuation of the node's runs in the window, once (the automaton is unambiguous).
   * Every node visited is in the window, so it yields a valuation: the delay is linear in the output. The walk keeps
   * its own stack of frames, one per node of the valuation being built, so a long valuation (an iteration over a
   * wide window) needs no deep recursion. Returns how many valuations it emitted.
   *
   * A frame chooses one live node of a union tree at a time (in heap order, from its own stack of subtrees), then
   * the frames above it choose one of each tree still `pending`: the product children of the nodes chosen below.
   * Where runs carry witnesses, a node (and its union subtree) is live only if some valuation through it reads
   * distinct events, given the events chosen so far and the trees still pending ([[completes]]).
   */
  private def enumerate(node: Long, emit: (Int, Array[Long], Array[Int]) => Boolean): Int = {
    var emitted = 0
    depth = 0
    push(new Pending(node, null), 0)
    while (open && depth > 0) {
      val frame = frames(depth - 1)
      val m = frame.nextLive()
      if (m == RunNodes.Nil) depth -= 1
      else {
        valuation.size = frame.mark
        val labels = transitions(nodes.transition(m)).labels
        var k = 0
        while (k < labels.length) { valuation.add(nodes.position(m), labels(k)); k += 1 }
        var rest = frame.rest
        k = arity(nodes.transition(m)) - 1
        while (k >= 0) { rest = new Pending(nodes.child(m, k), rest); k -= 1 }
        if (rest == null) {
          emitted += 1
          open = emit(valuation.size, valuation.positions, valuation.labels)
        } else push(rest, valuation.size)
      }
    }
    emitted
  }

  /** The union trees a valuation still has to choose from, as a list. */
  private final class Pending(val tree: Long, val next: Pending)

  /** One frame per node of the valuation being built, reused: `depth` of them are in use. */
  private var frames = new Array[Frame](0)
  private var depth = 0

  private def push(pending: Pending, mark: Int): Unit = {
    if (depth == frames.length)
      frames = Array.tabulate(math.max(4, depth * 2))(i => if (i < depth) frames(i) else new Frame)
    frames(depth).reset(pending, mark)
    depth += 1
  }

  /**
   * A step of the enumeration: one node of the union tree `pending.tree` is chosen at a time (the live ones, in heap
   * order), then one of each tree in `rest`; `mark` is the valuation's size before the choice.
   */
  private final class Frame {
    var rest: Pending = _
    var mark = 0
    private var union = new Array[Long](8)
    private var size = 0

    def reset(pending: Pending, mark: Int): Unit = {
      rest = pending.next
      this.mark = mark
      union(0) = pending.tree
      size = 1
    }

    /** The next live node of the union tree, or Nil. */
    def nextLive(): Long = {
      while (size > 0) {
        size -= 1
        work.enumerationSteps += 1
        val n = union(size)
        if (nodes.live(n, threshold) && (witnesses == null || completes(n, product = false, this))) {
          if (size + 2 > union.length) union = java.util.Arrays.copyOf(union, union.length * 2)
          union(size) = nodes.right(n)
          union(size + 1) = nodes.left(n)
          size += 2
          if (witnesses == null || completes(n, product = true, this)) return n
        }
      }
      RunNodes.Nil
    }
  }

  /** The positions of the valuation's events whose labels may be read twice, for [[completes]]. */
  private var held = new Array[Long](16)

  /**
   * Whether a run of node `n`'s product (or of its union subtree), with a run of each tree the frame still has
   * pending, reads events distinct from each other and from those the valuation holds before the frame.
   */
  private def completes(n: Long, product: Boolean, frame: Frame): Boolean = {
    var count = 0
    var k = 0
    while (k < frame.mark) {
      if (sharedLabel(valuation.labels(k))) {
        if (count == held.length) held = java.util.Arrays.copyOf(held, 2 * count)
        held(count) = valuation.positions(k)
        count += 1
      }
      k += 1
    }
    witnesses.check(held, count)
    witnesses.choose(nodes, n, product)
    var pending = frame.rest
    while (pending != null) { witnesses.choose(nodes, pending.tree, product = false); pending = pending.next }
    witnesses.viable(threshold)
  }

  /**
   * Writes the arena and the index's entries (purged first, so only live ones). Keys are not written: [[load]] reads
   * them again off the events, which the caller keeps (every event of a live run is inside the window).
   */
  def save(out: DataOutput): Unit = {
    expire(threshold)
    out.writeLong(threshold)
    nodes.write(out)
    out.writeInt(indexSize)
    for (j <- index.indices) index(j).foreachTree { tree => out.writeInt(j); out.writeLong(tree) }
  }

  /**
   * Makes this fresh run the one [[save]] wrote; `eventAt` gives the event at a position of a live run. The groups of
   * the latest runs are read again off the runs' events too.
   */
  def load(in: DataInput, eventAt: Long => E): Unit = {
    threshold = in.readLong()
    nodes.read(in)
    index.foreach(_.clear())
    for (_ <- 0 until in.readInt()) {
      val (j, tree) = (in.readInt(), in.readLong())
      val producer = nodes.transition(tree)
      val key = reader.key(indexKeys(producer)(consumers(transitions(producer).target).indexOf(joins(j))),
        eventAt(nodes.position(tree)))
      index(j).restore(key, nodes.maxStart(tree), tree)
      if (keeping(j) == PceaRun.ByGroup) regroup(j, key, tree, eventAt)
    }
  }

  /**
   * The group of a run of join `j` made by `producer`, under its outgoing and incoming keys ([[KeyIndex.group]]):
   * `first` starts it if none is in the window; `maxStart` is the run's.
   */
  private def groupOf(j: Int, producer: Int, key: AnyRef, incoming: AnyRef, first: Long, maxStart: Long): Long =
    groups(j)(producer).group(java.util.Arrays.asList(key, incoming), first, maxStart, threshold)

  /** Notes the group of each live run of a join's treap under `key`, as [[updateIndices]] did when it was made. */
  private def regroup(j: Int, key: AnyRef, tree: Long, eventAt: Long => E): Unit = {
    val pending = scala.collection.mutable.Stack(tree)
    while (pending.nonEmpty) {
      val m = pending.pop()
      if (nodes.live(m, threshold)) {
        val producer = nodes.transition(m)
        groupOf(
          j, producer, key, reader.key(transitions(producer).joins(0), eventAt(nodes.position(m))), nodes.group(m),
          nodes.maxStart(m))
        pending.push(nodes.left(m), nodes.right(m))
      }
    }
  }

  /** The (position, label) pairs of the valuation being enumerated. */
  private final class Valuation {
    var size = 0
    var positions = new Array[Long](16)
    var labels = new Array[Int](16)
    def add(position: Long, label: Int): Unit = {
      if (size == positions.length) {
        positions = java.util.Arrays.copyOf(positions, size * 2)
        labels = java.util.Arrays.copyOf(labels, size * 2)
      }
      positions(size) = position; labels(size) = label; size += 1
    }
  }
}

private object PceaRun {
  /** How a join keeps the runs indexed under a key: all, in a union tree. */
  val Union = 0
  /** The latest alone: the outgoing key says the incoming one. */
  val ByKey = 1
  /** The latest per incoming key, in a treap ([[RunNodes.latest]]). */
  val ByGroup = 2
}
