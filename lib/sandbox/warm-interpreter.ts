// The main process of a pooled container: Python started ahead of need, with the image's analysis
// libraries already imported, waiting for its one program (docs/DESIGN.md, "Code runs only in the
// sandbox"). Two processes, both the run's uid:
//   - the supervisor (the container's PID 1: code inside cannot kill it) reads the go line, the run's
//     marker and the program from stdin, acknowledges (POOLED_ACK on stdout and stderr), starts the in-container time
//     limit, hands the program to the interpreter over a pipe, waits for it and writes the end line
//     exactly like FILES_RUN_SCRIPT (docker-files.ts) does for a cold run;
//   - the interpreter, forked before the go line, imports numpy and pandas and builds and prints a
//     one-row DataFrame once (their one-time set-up), says it is warm
//     (WARM_READY on stderr, dropped with everything else written before the ack) and blocks on the
//     pipe; it then runs the program as `python3 -I -u -` would: a fresh `__main__` module, file name
//     "<stdin>", sys.argv ['-'], stdin at EOF, the same traceback and exit status. It ends as
//     Python's own shutdown would for the program (its threads joined, atexit handlers run, its
//     objects released so files it left open are flushed, stdio flushed) but without tearing the
//     imported libraries down, which costs hundreds of ms on a loaded machine (gc.freeze() keeps
//     them out of the last collection too).
// It never sees the marker (forked before it is read). The time limit starts with the go line, not
// with the container: an idle pooled container never spends a run's time.
import { ARTIFACT_MOUNT } from "./run-files";

/** The byte the interpreter writes to stderr once the libraries are imported and it waits for code (b'\x05' in WARM_LAUNCHER). */
export const WARM_READY = 0x05;

/** What the interpreter imports ahead of need (those the image lacks are skipped). */
export const WARM_IMPORTS = ["numpy", "pandas"] as const;

/**
 * The supervisor and interpreter, run as `python3 -I -u -c WARM_LAUNCHER <limit seconds> <collect
 * wait seconds>`. Kept to what python3 -I offers without a site directory.
 */
export const WARM_LAUNCHER = String.raw`
import os, signal, sys
limit, collect_wait = float(sys.argv[1]), float(sys.argv[2])
code_r, code_w = os.pipe()
child = os.fork()
if child == 0:
    os.close(code_w)
    os.setpgid(0, 0)
    null = os.open('/dev/null', os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for name in ${JSON.stringify(WARM_IMPORTS)}:
        try:
            __import__(name)
        except Exception:
            pass
    try:
        # First use of a DataFrame costs ~25 ms of one-time set-up (pandas' own lazy imports and
        # caches); paid here, ahead of need, with nothing of any run's.
        frame = sys.modules['pandas'].DataFrame({'a': [1], 'b': [0.5]})
        repr(frame)
        repr(frame.sum())
        repr(frame.describe())
        del frame
    except Exception:
        pass
    import gc
    gc.collect()
    gc.freeze()
    os.write(2, b'\x05')
    parts = []
    while True:
        part = os.read(code_r, 1 << 16)
        if not part:
            break
        parts.append(part)
    os.close(code_r)
    if not parts:
        os._exit(0)
    import builtins, types
    main = types.ModuleType('__main__')
    main.__builtins__ = builtins
    sys.modules['__main__'] = main
    sys.argv[:] = ['-']
    source = b''.join(parts)
    del parts
    status = 0
    try:
        exec(compile(source, '<stdin>', 'exec', dont_inherit=True), main.__dict__)
    except SystemExit as exit:
        if exit.code is None:
            pass
        elif isinstance(exit.code, int):
            status = exit.code & 0xFF
        else:
            try:
                print(exit.code, file=sys.stderr)
            except Exception:
                pass
            status = 1
    except BaseException as error:
        tb = error.__traceback__
        error.with_traceback(tb.tb_next if tb is not None else None)
        sys.excepthook(type(error), error, error.__traceback__)
        status = 1
    if 'threading' in sys.modules:
        import threading
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
    import atexit
    atexit._run_exitfuncs()
    main.__dict__.clear()
    gc.collect()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(status)
os.close(code_r)
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGCHLD, lambda *_: os._exit(70))
stdin = sys.stdin.buffer
if stdin.readline() != b'run\n':
    os._exit(0)
signal.signal(signal.SIGCHLD, signal.SIG_DFL)
def kill_code(*_):
    try:
        os.killpg(child, signal.SIGKILL)
    except OSError:
        pass
signal.signal(signal.SIGALRM, kill_code)
signal.setitimer(signal.ITIMER_REAL, limit)
marker = stdin.readline().strip()
os.write(1, b'\x06')
os.write(2, b'\x06')
source = stdin.read()
try:
    view = memoryview(source)
    while view:
        view = view[os.write(code_w, view):]
except OSError:
    pass
os.close(code_w)
status = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
signal.setitimer(signal.ITIMER_REAL, 0)
if status < 0:
    status = 128 - status
try:
    files = 1 if os.listdir('${ARTIFACT_MOUNT}') else 0
except OSError:
    files = 0
end = b'\x1e%s %d %d\n' % (marker, status, files)
os.write(1, end)
os.write(2, end)
if files:
    signal.signal(signal.SIGTERM, lambda *_: os._exit(status))
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    import time
    time.sleep(collect_wait)
os._exit(status)
`;
