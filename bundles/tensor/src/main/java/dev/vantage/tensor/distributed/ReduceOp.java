package dev.vantage.tensor.distributed;

/** How {@link ProcessGroup#allReduce} and {@link ProcessGroup#reduceScatter} combine the ranks' values. */
public enum ReduceOp {
    /** The sum over ranks. */
    SUM,
    /** The mean over ranks: the sum divided by the world size; float tensors only, as gloo's. */
    AVG,
    /** The largest value. */
    MAX,
    /** The smallest value. */
    MIN
}
