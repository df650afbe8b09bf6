package io.sparkcer.engine.runner

/** Just enough JSON for the runner's output: strings, numbers, booleans, null, objects and arrays. */
object JsonWriter {
  def value(v: Any, out: java.lang.StringBuilder): Unit = v match {
    case null => out.append("null")
    case s: String => string(s, out)
    case d: java.lang.Double if d.isNaN || d.isInfinite => string(d.toString, out)
    case n @ (_: java.lang.Number | _: java.lang.Boolean) => out.append(n.toString)
    case other => string(other.toString, out)
  }

  def string(s: String, out: java.lang.StringBuilder): Unit = {
    out.append('"')
    s.foreach {
      case '"' => out.append("\\\"")
      case '\\' => out.append("\\\\")
      case '\n' => out.append("\\n")
      case '\r' => out.append("\\r")
      case '\t' => out.append("\\t")
      case c if c < ' ' => out.append(f"\\u${c.toInt}%04x")
      case c => out.append(c)
    }
    out.append('"')
  }

  def obj(fields: Seq[(String, java.lang.StringBuilder => Unit)], out: java.lang.StringBuilder): Unit = {
    out.append('{')
    fields.zipWithIndex.foreach { case ((k, write), i) =>
      if (i > 0) out.append(", ")
      string(k, out); out.append(": "); write(out)
    }
    out.append('}')
  }
}
