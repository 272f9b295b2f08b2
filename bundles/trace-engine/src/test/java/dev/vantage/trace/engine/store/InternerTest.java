package dev.vantage.trace.engine.store;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

import org.junit.Test;

/** A name gets one id whether it comes as a string or as a parser's characters. */
public class InternerTest {

    @Test
    public void aStringAndItsCharactersShareAnId() {
        Interner interner = new Interner();
        String[] names = new String[5000];
        for (int i = 0; i < names.length; i++) {
            names[i] = (i % 3 == 0 ? "aten::mm_" : i % 3 == 1 ? "ncclKernel_\u00e9" : "\u4e2d\u6587") + i;
        }
        int[] ids = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            ids[i] = i % 2 == 0 ? interner.intern(names[i]) : interner.intern(chars(names[i]), 3, names[i].length());
        }
        assertEquals(names.length, interner.size());
        for (int i = 0; i < names.length; i++) {
            // the other way in, after the table grew many times
            int again = i % 2 == 0 ? interner.intern(chars(names[i]), 3, names[i].length())
                    : interner.intern(new String(names[i].toCharArray()));
            assertEquals(names[i], ids[i], again);
            assertEquals(names[i], interner.get(ids[i]));
        }
        assertEquals(names.length, interner.size());
        assertNotEquals(interner.intern("a"), interner.intern("b"));
        assertEquals(interner.intern(""), interner.intern(new char[0], 0, 0));
    }

    /** The name's characters at offset 3 of a larger buffer, as a parser holds them. */
    private static char[] chars(String s) {
        char[] c = new char[s.length() + 6];
        s.getChars(0, s.length(), c, 3);
        return c;
    }
}
