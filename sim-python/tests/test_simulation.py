"""simcore.Simulation against the repository's worlds and the real plugin libraries."""

import threading
import time

import numpy as np
import pytest

import simcore
from conftest import IMU_TOPIC, SMALL_SENSORS


def test_load_from_path_and_from_text(world, plugins):
    path = world("imu_drop.sdf")
    for source in (path, str(path), path.read_text()):
        with simcore.Simulation(source, plugin_path=plugins) as sim:
            assert sim.world_name == "imu_drop"
            assert sim.models() == ["ground", "box"]
            assert IMU_TOPIC in sim.topics()
            assert "imu_drop" in repr(sim)
    assert "closed" in repr(sim)
    with pytest.raises(simcore.ControlError):
        sim.step()


def test_a_bad_world_raises_with_its_file_and_line(tmp_path, plugins):
    bad = tmp_path / "bad.sdf"
    bad.write_text(
        '<sdf version="1.9">\n<world name="w">\n  <model name="m">\n'
        "    <link name=\"l\"><inertial><mass>-1</mass></inertial></link>\n"
        "  </model>\n</world>\n</sdf>\n"
    )
    with pytest.raises(simcore.WorldError) as e:
        simcore.Simulation(bad, plugin_path=plugins)
    assert f"{bad}:4:" in str(e.value)
    assert isinstance(e.value, simcore.SimError)
    with pytest.raises(simcore.WorldError, match="<inline>:4:"):
        simcore.Simulation(bad.read_text())
    with pytest.raises(simcore.WorldError, match="cannot read"):
        simcore.Simulation(tmp_path / "missing.sdf")
    problems = simcore.check(bad)
    assert problems and problems[0]["severity"] == "error"
    assert (problems[0]["file"], problems[0]["line"]) == (str(bad), 4)
    assert simcore.check(tmp_path / "none.sdf")[0]["severity"] == "error"


def test_check_a_valid_world(world):
    assert [p for p in simcore.check(world("diff_drive.sdf")) if p["severity"] == "error"] == []


def test_strict_policy_names_the_missing_plugin(world):
    with pytest.raises(simcore.PluginError, match="imu"):
        simcore.Simulation(world("imu_drop.sdf"), plugin_path=[], policy="strict")


def test_step_and_time(world, plugins):
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins) as sim:
        assert (sim.time, sim.iteration) == (0.0, 0)
        sim.step()
        sim.step(99)
        assert sim.iteration == 100
        assert sim.time_ns == 100 * 1_000_000
        assert sim.time == pytest.approx(0.1)
        assert sim.step_size == pytest.approx(0.001)


def test_read_an_imu_as_a_dict(world, plugins):
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins) as sim:
        assert sim.read(IMU_TOPIC) is None, "nothing is published before the first step"
        sim.step(1)
        imu = sim.read(IMU_TOPIC)
        assert imu is not None and imu.type == "IMU"
        assert imu.topic == IMU_TOPIC and imu.stamp == pytest.approx(0.001) and imu.seq == 0
        assert imu.stamp_ns == 1_000_000
        # Lockstep: when step returns, the sample of the time it reached is there.
        sim.step(9)
        imu = sim.read(IMU_TOPIC)
        assert imu.stamp_ns == sim.time_ns == 10_000_000 and imu.seq == 1
        assert imu.frame_id
        # Free fall: about 0 (noise only).
        assert abs(imu["linear_acceleration"]["z"]) < 0.2
        assert set(imu["angular_velocity"]) == {"x", "y", "z"}
        assert imu.array is None and "linear_acceleration" in imu
        assert imu.to_dict()["type"] == "IMU"
        sim.step(1500)
        # At rest on the ground: +g.
        assert sim.read(IMU_TOPIC)["linear_acceleration"]["z"] == pytest.approx(9.8, abs=0.2)
        assert sim.read("/no/such/topic") is None


def test_a_camera_image_is_a_numpy_array_without_a_copy(world, plugins):
    sim = simcore.Simulation(world("sensors_demo.sdf"), plugin_path=plugins, overrides=SMALL_SENSORS)
    camera = next(t for t in sim.topics() if t.endswith("/camera/image"))
    sim.step(1)
    msg = sim.read(camera)
    img = msg.array
    assert msg.type == "Image" and img.shape == (48, 64, 3) and img.dtype == np.uint8
    assert img.flags.owndata is False and img.flags.writeable is False
    with pytest.raises(ValueError):
        img.flags.writeable = True
    assert msg["data"] is img
    again = sim.read(camera).array
    assert again is not img and np.shares_memory(img, again)
    assert img.std() > 0, "the scene is not blank"
    before = img.copy()
    late = sim.read(camera)  # its fields and array are made when first used: after the steps
    sim.step(400)  # two more frames
    newer = sim.read(camera).array
    assert not np.shares_memory(img, newer)
    assert np.array_equal(img, before), "an array read earlier never changes"
    assert late.stamp == msg.stamp and late["height"] == 48
    assert np.array_equal(late.array, before) and late.array is late["data"]
    depth_topic = next(t for t in sim.topics() if t.endswith("/depth_image"))
    depth = sim.read(depth_topic).array
    assert depth.shape == (30, 40) and depth.dtype == np.float32
    assert depth.flags.owndata is False
    assert np.isfinite(depth).any()
    del sim, msg, again, newer
    assert img.sum() == before.sum(), "the array keeps the message alive"


def test_a_lidar_scan_is_an_array(world, plugins):
    with simcore.Simulation(world("sensors_demo.sdf"), plugin_path=plugins, overrides=SMALL_SENSORS) as sim:
        scan_topic = next(t for t in sim.topics() if t.endswith("/lidar/scan"))
        sim.step(1)
        scan = sim.read(scan_topic)
        assert scan.type == "LaserScan"
        assert scan["count"] == 90 and scan["vertical_count"] == 4
        assert scan.array.shape == (4, 90) and scan.array.dtype == np.float64
        assert scan["ranges"].shape == (360,) and not scan["ranges"].flags.owndata
        hits = scan.array[np.isfinite(scan.array)]
        assert hits.size > 0 and hits.min() >= scan["range_min"]
        cloud = sim.read(scan_topic + "/points")
        assert cloud.type == "PointCloudPacked"
        points = cloud.array
        assert points.shape == (4, 90) and points.dtype.names[:3] == ("x", "y", "z")
        assert not points.flags.owndata and points.base is not None
        assert np.shares_memory(points, sim.read(scan_topic + "/points")["data"])
        # The cloud's points lie at the scan's ranges (the sensor at 1.5 m).
        xyz = np.stack([points["x"], points["y"], points["z"]], axis=-1).astype(np.float64)
        finite = np.isfinite(scan.array)
        assert np.allclose(np.linalg.norm(xyz, axis=-1)[finite], scan.array[finite], rtol=1e-3, atol=1e-3)


def test_publish_cmd_vel_moves_the_robot(world, plugins):
    with simcore.Simulation(world("diff_drive.sdf"), plugin_path=plugins) as sim:
        odom = sim.subscribe("/model/robot/odometry")
        sim.publish("/model/robot/cmd_vel", {"type": "Twist", "linear": {"x": 0.5}})
        sim.step(2000)
        x = sim.get_state("robot")["pose"][0]
        assert x > 0.5, x
        got = odom.drain()
        assert len(got) > 50 and got[-1].type == "Odometry"
        assert got[-1]["pose"]["position"]["x"] > 0.5
        assert odom.drain() == []
        with pytest.raises(simcore.MessageError, match="linaer"):
            sim.publish("/model/robot/cmd_vel", {"type": "Twist", "linaer": {"x": 1}})
        with pytest.raises(ValueError):
            sim.publish("/model/robot/cmd_vel", {"type": "Twist", "linear": {"x": "fast"}})


def test_call_a_service(world, plugins):
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins) as sim:
        service = f"{IMU_TOPIC}/set_rate"
        assert service in sim.services()
        reply = sim.call(service, {"type": "Double", "data": 50})
        assert reply["type"] == "Double" and reply["data"] == 50
        with pytest.raises(simcore.ServiceError, match="no service"):
            sim.call("/nope", {"type": "Empty"})


def test_entity_state_spawn_and_delete(world, plugins):
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins) as sim:
        state = sim.get_state("box")
        assert state["pose"] == pytest.approx((0, 0, 2))
        assert state["orientation"] == pytest.approx((0, 0, 0, 1))
        sim.set_state("box", pose=(1, 2, 3), linear_velocity=(0, 0, 1))
        state = sim.get_state("box")
        assert state["pose"] == pytest.approx((1, 2, 3))
        assert state["linear_velocity"] == pytest.approx((0, 0, 1))
        with pytest.raises(simcore.EntityNotFound):
            sim.get_state("nothing")
        # A link by its scoped name: the box's one link moves with it.
        body = sim.get_state("box::body")
        assert body["pose"] == pytest.approx((1, 2, 3))
        assert body["linear_velocity"] == pytest.approx((0, 0, 1))
        with pytest.raises(simcore.EntityNotFound, match="no model or link `box::nobody`"):
            sim.get_state("box::nobody")
        with pytest.raises(KeyError):
            sim.set_state("nothing", pose=(0, 0, 0))
        ball = (
            '<sdf version="1.9"><model name="ball"><link name="l">'
            "<inertial><mass>1</mass></inertial>"
            '<collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>'
            "</link></model></sdf>"
        )
        assert sim.spawn(ball, pose=(3, 0, 1)) == "ball"
        assert sim.spawn(ball, name="ball2", pose=(4, 0, 1)) == "ball2"
        assert sim.models() == ["ground", "box", "ball", "ball2"]
        # By region (collision boxes): the ball at x = 3 (radius 0.1), not the one at x = 4
        # nor the box at (1, 2, 3).
        near = sim.models(near=(3.3, 0, 1), radius=0.25)
        assert "ball" in near and "ball2" not in near and "box" not in near
        assert "ball" not in sim.models(near=(3.3, 0, 1), radius=0.15)
        between = sim.models(between=((3.5, 1, 2), (2.5, -1, 0.5)))
        assert "ball" in between and "ball2" not in between and "box" not in between
        with pytest.raises(ValueError, match="go together"):
            sim.models(near=(0, 0, 0))
        with pytest.raises(ValueError, match="not both"):
            sim.models(near=(0, 0, 0), radius=1, between=((0, 0, 0), (1, 1, 1)))
        with pytest.raises(ValueError, match="radius"):
            sim.models(near=(0, 0, 0), radius=-1)
        with pytest.raises(ValueError, match="finite"):
            sim.models(between=((float("nan"), 0, 0), (1, 1, 1)))
        sim.step(10)
        assert sim.get_state("ball")["pose"][0] == pytest.approx(3)
        with pytest.raises(simcore.SpawnError, match="already exists"):
            sim.spawn(ball)
        assert sim.spawn(ball, allow_renaming=True) == "ball_1"
        sim.delete("ball2")
        assert "ball2" not in sim.models()
        with pytest.raises(simcore.EntityNotFound, match="ball2"):
            sim.delete("ball2")
        with pytest.raises(simcore.EntityError, match="static"):
            sim.set_state("ground", linear_velocity=(1, 0, 0))
        with pytest.raises(simcore.EntityError, match="pose"):
            sim.set_state("box", pose=(float("nan"), 0, 0))
        with pytest.raises(ValueError):
            sim.reset(spawned_only=True, seed=3)
        sim.reset(spawned_only=True)
        assert sim.models() == ["ground", "box"]


def trajectory(sim, steps=300, every=50):
    out = []
    for _ in range(steps // every):
        sim.step(every)
        out.append((sim.get_state("box")["pose"], sim.read(IMU_TOPIC)["linear_acceleration"]["z"]))
    return out


def test_reset_gives_the_same_run_and_a_seed_another(world, plugins):
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins, seed=1) as sim:
        first = trajectory(sim)
        sim.reset()
        assert sim.time == 0.0 and sim.read(IMU_TOPIC) is None
        assert trajectory(sim) == first
        sim.reset(seed=2)
        assert sim.seed == 2
        other = trajectory(sim)
        assert [p for p, _ in other] == [p for p, _ in first], "the physics has no noise"
        assert [a for _, a in other] != [a for _, a in first], "the IMU's noise follows the seed"
        with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins, seed=2) as fresh:
            assert trajectory(fresh) == other
        sim.reset(seed=1)
        assert trajectory(sim) == first


def test_overrides_change_the_physics(world, plugins):
    def height_after(overrides, steps=400):
        with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins, overrides=overrides) as sim:
            sim.step(steps)
            return sim.get_state("box")["pose"][2]

    assert height_after(None) == pytest.approx(2 - 0.5 * 9.8 * 0.4**2, abs=0.01)
    higher = height_after({"world/model[box]/pose": (0, 0, 5, 0, 0, 0)})
    assert higher == pytest.approx(5 - 0.5 * 9.8 * 0.4**2, abs=0.01)
    weaker = height_after({"world/gravity": "0 0 -1.6"})
    assert weaker == pytest.approx(2 - 0.5 * 1.6 * 0.4**2, abs=0.01)


def test_friction_overrides_change_a_slide(world, plugins):
    def slide(mu):
        overrides = {"world/model[ground]/link[plane]/collision[collision]/surface/friction/ode/mu": mu} if mu else {}
        text = world("imu_drop.sdf").read_text().replace(
            '<collision name="collision">\n          <geometry><plane>',
            '<collision name="collision">\n          <surface><friction><ode><mu>1</mu></ode></friction></surface>\n          <geometry><plane>',
        )
        with simcore.Simulation(text, plugin_path=plugins, overrides=overrides) as sim:
            sim.set_state("box", pose=(0, 0, 0.1))
            sim.step(200)
            sim.set_state("box", linear_velocity=(2, 0, 0))
            sim.step(500)
            return sim.get_state("box")["pose"][0]

    assert slide(0.05) > slide(1.0) + 0.3


def test_a_bad_override_names_its_path(world, plugins):
    path = "world/model[bx]/pose"
    with pytest.raises(simcore.OverrideError) as e:
        simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins, overrides={path: "0 0 1 0 0 0"})
    assert path in str(e.value) and "model[box]" in str(e.value)
    assert isinstance(e.value, simcore.WorldError)
    with pytest.raises(simcore.OverrideError, match="does not add one"):
        simcore.Simulation(world("imu_drop.sdf"), overrides={"world/model[box]/static": True})


def test_two_simulations_at_once(world, plugins):
    a = simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins, seed=3)
    b = simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins, seed=3, overrides={"world/model[box]/pose": "0 0 4 0 0 0"})
    for _ in range(5):
        a.step(40)
        b.step(40)
    assert a.get_state("box")["pose"][2] == pytest.approx(b.get_state("box")["pose"][2] - 2)
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins, seed=3) as alone:
        alone.step(200)
        assert alone.read(IMU_TOPIC).to_dict() == a.read(IMU_TOPIC).to_dict()
    simcore.step_all([a, b], 100, threads=2)
    assert a.time == b.time == pytest.approx(0.3)


def test_the_gil_is_released_while_stepping(world, plugins):
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins) as sim:
        counted = 0
        stop = threading.Event()

        def count():
            nonlocal counted
            while not stop.is_set():
                counted += 1

        t = threading.Thread(target=count)
        t.start()
        time.sleep(0.05)
        took, during = 0.0, 0
        while took < 0.2:
            started, t0 = counted, time.perf_counter()
            sim.step(2000)
            took += time.perf_counter() - t0
            during += counted - started
        stop.set()
        t.join()
        # With the GIL held for the whole step the thread could not count at all.
        assert during > 1000, (took, during)


def test_play_and_pause(world, plugins):
    with simcore.Simulation(world("imu_drop.sdf"), plugin_path=plugins) as sim:
        assert sim.paused and sim.state == "paused"
        sim.play(rtf=0)
        assert not sim.paused and sim.state == "playing"
        with pytest.raises(simcore.ControlError, match="pause"):
            sim.step()
        with pytest.raises(simcore.ControlError):
            sim.reset()
        deadline = time.time() + 10
        while sim.read(IMU_TOPIC) is None and time.time() < deadline:
            time.sleep(0.01)
        sim.pause()
        assert sim.paused and sim.state == "paused" and sim.time > 0
        t = sim.time
        time.sleep(0.05)
        assert sim.time == t
        sim.step(1)
        assert sim.time > t
        sim.play(rtf=1.0)
    # Closing stops the background thread.
    assert sim.paused


def test_sensor_threads_give_the_same_data(world, plugins):
    def frames(threads):
        with simcore.Simulation(
            world("sensors_demo.sdf"), plugin_path=plugins, overrides=SMALL_SENSORS, threads=threads
        ) as sim:
            sim.step(1)
            return {t: sim.read(t).array.tobytes() for t in sim.topics() if sim.read(t) is not None and sim.read(t).array is not None}

    one = frames(1)
    assert len(one) >= 4
    assert frames(3) == one
