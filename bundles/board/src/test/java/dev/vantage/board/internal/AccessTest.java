package dev.vantage.board.internal;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class AccessTest {

    private static final String TOKEN = "0123456789abcdef0123456789abcdef";

    @Test
    public void aBoardWithATokenRefusesEveryRequestWithoutIt() {
        Access a = new Access(TOKEN);
        assertNotNull(a.refusal("board.example:6006", null, null));
        assertNotNull(a.refusal("127.0.0.1:6006", null, null));
        assertNotNull(a.refusal("127.0.0.1:6006", TOKEN.substring(1), null));
        assertNotNull(a.refusal("127.0.0.1:6006", "", "x" + TOKEN));
        assertNull(a.refusal("board.example:6006", TOKEN, null));
        assertNull(a.refusal("board.example:6006", null, TOKEN));
        assertTrue(a.setsCookie(TOKEN));
        assertFalse(a.setsCookie(null));
    }

    @Test
    public void aLoopbackBoardAnswersOnlyRequestsNamingTheLoopbackAddress() {
        Access a = new Access(null);
        for (String ok : new String[] {"127.0.0.1:6006", "localhost:6006", "LOCALHOST", "[::1]:6006", "127.1.2.3"}) {
            assertNull(ok, a.refusal(ok, null, null));
        }
        // DNS rebinding: a name of someone else's that resolves to 127.0.0.1
        for (String bad : new String[] {"evil.example:6006", "127.0.0.1.evil.example", "localhost.evil:80", "",
            "[::2]:6006", "127.0.0.1:x"}) {
            assertNotNull(bad, a.refusal(bad, null, null));
        }
        assertNotNull(a.refusal(null, null, null));
        assertFalse(a.setsCookie(TOKEN));
    }
}
