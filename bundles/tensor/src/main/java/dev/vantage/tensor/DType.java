package dev.vantage.tensor;

/** The element types a tensor can hold. Floats are first-class; int64 and bool serve as indices and masks. */
public enum DType {
    /** 32-bit float, the type of every differentiable tensor; profiles call it {@code float}. */
    FLOAT32("float", 4),
    /** 64-bit integer, for indices and class labels; profiles call it {@code long}. */
    INT64("long", 8),
    /** Boolean, for masks; profiles call it {@code bool}. */
    BOOL("bool", 1);

    private final String profileName;
    private final int itemSize;

    DType(String profileName, int itemSize) {
        this.profileName = profileName;
        this.itemSize = itemSize;
    }

    /** Returns the name profiles show in {@code Input type}, as torch's: {@code float}, {@code long}, {@code bool}. */
    public String profileName() {
        return profileName;
    }

    /** Returns the size of one element in bytes. */
    public int itemSize() {
        return itemSize;
    }
}
