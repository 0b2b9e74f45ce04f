"""WebSocket framing (kubesim/wsproto.py): the handshake helpers, frame
encoding, and the incremental parser with its protocol errors and close
codes."""

import os
import struct
import subprocess
import sys
import unittest

import support  # noqa: F401  (sys.path)
from kubesim import wsproto
from kubesim.wsproto import (OP_BINARY, OP_CLOSE, OP_CONT, OP_PING, OP_PONG, OP_TEXT,
                             FrameParser, ProtocolError, encode_frame)

KEY = b"\x01\x02\x03\x04"


def client_frame(opcode, payload=b"", fin=True, key=KEY):
    """A frame as a client sends it: masked."""
    return encode_frame(opcode, payload, fin=fin, mask_key=key)


class Handshake(unittest.TestCase):
    def test_accept_key_of_the_rfc_example(self):
        self.assertEqual(wsproto.accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
                         "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        self.assertEqual(wsproto.accept_key(" dGhlIHNhbXBsZSBub25jZQ== "),
                         "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")

    def test_valid_key_is_base64_of_16_bytes(self):
        self.assertTrue(wsproto.valid_key("dGhlIHNhbXBsZSBub25jZQ=="))
        self.assertFalse(wsproto.valid_key("dGhlIHNhbXBsZQ=="))       # 10 bytes
        self.assertFalse(wsproto.valid_key("not base64!!"))
        self.assertFalse(wsproto.valid_key(""))

    def test_offered_protocols_from_repeated_comma_lists(self):
        self.assertEqual(wsproto.offered_protocols(["v4.channel.k8s.io, base64.x",
                                                    " channel.k8s.io ,,"]),
                         ["v4.channel.k8s.io", "base64.x", "channel.k8s.io"])
        self.assertEqual(wsproto.offered_protocols(None), [])

    def test_choose_protocol_prefers_ours(self):
        self.assertEqual(wsproto.choose_protocol([wsproto.V1, wsproto.V4, wsproto.V5]),
                         wsproto.V5)
        self.assertEqual(wsproto.choose_protocol([wsproto.V1, wsproto.V4],
                                                 (wsproto.V4, wsproto.V1)), wsproto.V4)
        self.assertIsNone(wsproto.choose_protocol(["base64.channel.k8s.io"]))
        self.assertIsNone(wsproto.choose_protocol([wsproto.V5], (wsproto.V4,)))


class Encode(unittest.TestCase):
    def test_short_unmasked_frame(self):
        self.assertEqual(encode_frame(OP_TEXT, b"hi"), b"\x81\x02hi")
        self.assertEqual(encode_frame(OP_BINARY, b"", fin=False), b"\x02\x00")

    def test_length_encodings(self):
        for n, header in ((125, b"\x82\x7d"), (126, b"\x82\x7e\x00\x7e"),
                          (65535, b"\x82\x7e\xff\xff"),
                          (65536, b"\x82\x7f" + struct.pack("!Q", 65536))):
            with self.subTest(n=n):
                frame = encode_frame(OP_BINARY, b"x" * n)
                self.assertEqual(frame[:len(header)], header)
                self.assertEqual(len(frame), len(header) + n)

    def test_masked_frame(self):
        frame = encode_frame(OP_TEXT, b"Hello", mask_key=b"\x37\xfa\x21\x3d")
        self.assertEqual(frame, b"\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58")

    def test_mask_matches_the_byte_by_byte_definition(self):
        """Both ways of masking, and the dispatch between them, around
        the native threshold and the C loop's 8-byte steps, at offsets
        that leave the key out of step with the buffer's alignment."""
        key = b"\x9c\x01\xff\x5a"
        native = wsproto._NATIVE_FROM
        sizes = (0, 1, 3, 4, 5, 9, 15, 16, 17, native - 1, native, native + 1,
                 native + 7, 70001)
        impls = [wsproto._mask_translate, wsproto._mask]
        for impl in impls:
            for n in sizes:
                with self.subTest(impl=impl.__name__, n=n):
                    payload = bytes((i * 7 + 3) % 256 for i in range(n))
                    want = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
                    self.assertEqual(impl(payload, key), want)
                    self.assertEqual(impl(memoryview(payload), key), want)
                    # a range of a bigger buffer, as the parser unmasks in place
                    for head in (b"h", b"head", b"header!"):
                        framed = bytearray(head + payload + b"tail")
                        got = impl(framed, key, len(head), len(head) + n)
                        self.assertEqual(got, want)
                        self.assertIsInstance(got, bytearray)
                        # the buffer is not held: the parser shrinks it next
                        del framed[:len(head) + n]
                        self.assertEqual(framed, bytearray(b"tail"))

    def test_native_mask_is_loaded_where_it_is_built(self):
        """make builds _wsmask.so before the suite runs, and tests/run
        says so (KUBESIM_NATIVE_REQUIRED=1): there kube-sim must mask in
        C, or the benches measure the Python path unawares."""
        if os.environ.get("KUBESIM_NATIVE_REQUIRED") != "1":
            self.skipTest("not run by tests/run after make")
        self.assertIsNotNone(wsproto.NATIVE_MASK)

    def test_pure_python_leaves_the_native_mask_unloaded(self):
        env = dict(os.environ, KUBESIM_PURE_PYTHON="1")
        out = subprocess.run(
            [sys.executable, "-c", "from kubesim import wsproto; print(wsproto.NATIVE_MASK)"],
            cwd=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
            env=env, capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.strip(), "None")

    def test_channel_and_close_frames(self):
        self.assertEqual(wsproto.encode_channel(wsproto.STDOUT, b"out"), b"\x82\x04\x01out")
        self.assertEqual(wsproto.encode_close(1000, "bye"), b"\x88\x05\x03\xe8bye")
        self.assertEqual(wsproto.encode_close(), b"\x88\x02\x03\xe8")
        # the reason is cut so that the frame stays a valid control frame
        self.assertEqual(len(wsproto.encode_close(1001, "r" * 300)), 2 + 2 + 120)

    def test_parse_close(self):
        self.assertEqual(wsproto.parse_close(b"\x03\xe9gone"), (1001, "gone"))
        self.assertEqual(wsproto.parse_close(b"\x03\xf1"), (wsproto.CLOSE_TOO_BIG, ""))
        self.assertEqual(wsproto.parse_close(b""), (None, ""))
        self.assertEqual(wsproto.parse_close(b"\x03"), (None, ""))
        self.assertEqual(wsproto.parse_close(b"\x03\xe8\xff"), (1000, "\ufffd"))


class Parse(unittest.TestCase):
    def test_masked_client_frames_are_unmasked(self):
        parser = FrameParser()
        data = client_frame(OP_BINARY, b"\x00ls\n") + client_frame(OP_TEXT, b"txt")
        self.assertEqual(parser.feed(data), [(OP_BINARY, b"\x00ls\n"), (OP_TEXT, b"txt")])

    def test_every_length_encoding_round_trips(self):
        for n in (0, 1, 125, 126, 65535, 65536, 70000):
            with self.subTest(n=n):
                payload = bytes(range(256)) * (n // 256) + bytes(range(n % 256))
                parser = FrameParser()
                self.assertEqual(parser.feed(client_frame(OP_BINARY, payload)),
                                 [(OP_BINARY, payload)])

    def test_bytes_can_arrive_one_at_a_time(self):
        parser = FrameParser()
        data = client_frame(OP_BINARY, b"x" * 300) + client_frame(OP_PING, b"p")
        out = []
        for i in range(len(data)):
            got = parser.feed(data[i:i + 1])
            if i < len(data) - 1 and i != 2 + 2 + 4 + 300 - 1:
                self.assertEqual(got, [], "complete too early at byte %d" % i)
            out += got
        self.assertEqual(out, [(OP_BINARY, b"x" * 300), (OP_PING, b"p")])

    def test_unmasked_client_frame_is_a_protocol_error(self):
        with self.assertRaises(ProtocolError) as cm:
            FrameParser().feed(encode_frame(OP_TEXT, b"hi"))
        self.assertEqual(cm.exception.code, wsproto.CLOSE_PROTOCOL_ERROR)
        self.assertEqual(str(cm.exception), "client frames must be masked")

    def test_unmasked_frames_are_fine_when_no_mask_is_required(self):
        parser = FrameParser(require_mask=False)
        self.assertEqual(parser.feed(encode_frame(OP_TEXT, b"hi")), [(OP_TEXT, b"hi")])

    def test_fragmented_message_is_reassembled(self):
        parser = FrameParser()
        self.assertEqual(parser.feed(client_frame(OP_TEXT, b"he", fin=False)), [])
        self.assertEqual(parser.feed(client_frame(OP_CONT, b"ll", fin=False)), [])
        self.assertEqual(parser.feed(client_frame(OP_CONT, b"o")), [(OP_TEXT, b"hello")])
        # and the parser is ready for the next message
        self.assertEqual(parser.feed(client_frame(OP_BINARY, b"!")), [(OP_BINARY, b"!")])

    def test_control_frames_may_come_between_fragments(self):
        parser = FrameParser()
        data = (client_frame(OP_BINARY, b"a", fin=False) + client_frame(OP_PING, b"1") +
                client_frame(OP_CONT, b"b", fin=False) + client_frame(OP_PONG) +
                client_frame(OP_CONT, b"c") + client_frame(OP_CLOSE, b"\x03\xe8"))
        self.assertEqual(parser.feed(data), [(OP_PING, b"1"), (OP_PONG, b""),
                                             (OP_BINARY, b"abc"), (OP_CLOSE, b"\x03\xe8")])

    def assert_protocol_error(self, data, message, code=wsproto.CLOSE_PROTOCOL_ERROR,
                              parser=None):
        with self.assertRaises(ProtocolError) as cm:
            (parser or FrameParser()).feed(data)
        self.assertEqual((str(cm.exception), cm.exception.code), (message, code))

    def test_continuation_without_a_message(self):
        self.assert_protocol_error(client_frame(OP_CONT, b"x"),
                                   "continuation frame without a message to continue")

    def test_new_message_inside_a_fragmented_one(self):
        self.assert_protocol_error(client_frame(OP_TEXT, b"a", fin=False) +
                                   client_frame(OP_TEXT, b"b"),
                                   "new data message inside a fragmented one")

    def test_reserved_bits(self):
        frame = bytearray(client_frame(OP_TEXT, b"x"))
        frame[0] |= 0x40
        self.assert_protocol_error(bytes(frame),
                                   "reserved bits set (no extension was negotiated)")

    def test_unknown_opcode(self):
        self.assert_protocol_error(client_frame(0x3, b"x"), "unknown opcode 3")
        self.assert_protocol_error(client_frame(0xB, b"x"), "unknown opcode 11")

    def test_control_frames_must_be_short_and_whole(self):
        self.assert_protocol_error(client_frame(OP_PING, b"p" * 126),
                                   "control frames must be short and unfragmented")
        self.assert_protocol_error(client_frame(OP_CLOSE, b"\x03\xe8", fin=False),
                                   "control frames must be short and unfragmented")

    def test_too_big_is_close_1009(self):
        parser = FrameParser(max_message=10)
        self.assertEqual(parser.feed(client_frame(OP_BINARY, b"x" * 10)),
                         [(OP_BINARY, b"x" * 10)])
        self.assert_protocol_error(client_frame(OP_BINARY, b"x" * 11), "message too big",
                                   wsproto.CLOSE_TOO_BIG, FrameParser(max_message=10))
        # fragments count together
        parser = FrameParser(max_message=10)
        parser.feed(client_frame(OP_BINARY, b"x" * 6, fin=False))
        self.assert_protocol_error(client_frame(OP_CONT, b"x" * 6), "message too big",
                                   wsproto.CLOSE_TOO_BIG, parser)

    def test_too_big_is_refused_from_the_header_alone(self):
        # no payload needs to arrive: a 64-bit length is enough to refuse
        header = b"\x82\xff" + struct.pack("!Q", wsproto.MAX_MESSAGE + 1)
        self.assert_protocol_error(header, "message too big", wsproto.CLOSE_TOO_BIG)


if __name__ == "__main__":
    unittest.main()
