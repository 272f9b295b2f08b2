package com.example.app;

import java.util.ArrayList;
import java.util.List;

/** An application's class with methods of every shape the weaver meets when they are named as steps. */
public class Api {

    private final List<String> log = new ArrayList<>();

    public int handle(int x) {
        return x * 2;
    }

    public String handle(String s, long l, double d, boolean flag) {
        String out = s + l + d + flag;
        log.add(out);
        return out;
    }

    public static long handle(long a, long b) {
        return a + b;
    }

    int handle(int x, int y) {
        if (x < 0) {
            throw new IllegalArgumentException("negative " + x);
        }
        return x + y;
    }

    public int handle(int[] values) {
        int sum = 0;
        for (int v : values) {
            try {
                if (v < 0) {
                    throw new IllegalStateException("caught inside");
                }
                sum += v;
            } catch (IllegalStateException e) {
                sum -= 1000;
            }
        }
        return sum;
    }

    public void handle() {
        int i = 0;
        while (true) {
            if (++i > 3) {
                return;
            }
            log.add("loop " + i);
        }
    }

    public List<String> log() {
        return log;
    }
}
