"""Labelled camera frames for a training set: a camera looks at a floor where labelled
objects (crates, balls, cans) are scattered anew for every frame; each frame's RGB image,
per-pixel class labels go to OUT/frame_NNNNN.npz, and OUT/labels.json lists the frames with
their 2D boxes (class, then the first and last pixel column and row: x0, y0, x1, y1). The scatter comes from the seed, so the same command writes the
same files. From the repository's root:

    SIMCORE_PLUGIN_PATH=target/debug python3 examples/python/dataset.py 20 dataset
"""

import json
import pathlib
import sys

import numpy as np

import simcore

FRAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 20
OUT = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "dataset")
SEED = 7
# Class labels, as Gazebo's Label system gives them. The boxes are those of labelled models;
# the labels image gives unlabelled geometry (the floor) a label from its model's name,
# which becomes 0 here, the background.
CLASSES = {"crate": 1, "ball": 2, "can": 3}
SHAPES = {
    "crate": "<box><size>0.5 0.5 0.5</size></box>",
    "ball": "<sphere><radius>0.25</radius></sphere>",
    "can": "<cylinder><radius>0.15</radius><length>0.5</length></cylinder>",
}
COLOURS = {"crate": "0.6 0.4 0.2 1", "ball": "0.9 0.1 0.1 1", "can": "0.2 0.5 0.9 1"}
OBJECTS = [f"{kind}_{i}" for kind in CLASSES for i in range(3)]

# One camera rig with three sensors of the same view: the image, the labels, the boxes.
VIEW = """<update_rate>0</update_rate><camera><horizontal_fov>1.1</horizontal_fov>
  <image><width>320</width><height>240</height></image><clip><near>0.1</near><far>30</far></clip>
  {extra}</camera>"""


def label(n):
    return (f'<plugin filename="gz-sim-label-system" name="gz::sim::systems::Label">'
            f"<label>{n}</label></plugin>")


def obj(name):
    kind = name.split("_")[0]
    return f"""<model name="{name}"><static>true</static>{label(CLASSES[kind])}<link name="l">
      <visual name="v"><geometry>{SHAPES[kind]}</geometry>
        <material><diffuse>{COLOURS[kind]}</diffuse></material></visual></link></model>"""


WORLD = f"""<sdf version="1.9"><world name="dataset">
  <light type="directional" name="sun"><direction>-0.4 0.3 -0.9</direction>
    <diffuse>0.9 0.9 0.9 1</diffuse><cast_shadows>true</cast_shadows></light>
  <model name="floor"><static>true</static><link name="l"><visual name="v">
    <geometry><plane><normal>0 0 1</normal><size>40 40</size></plane></geometry>
    <material><diffuse>0.7 0.7 0.7 1</diffuse></material></visual></link></model>
  <model name="rig"><static>true</static><pose>-1 0 2.2 0 0.5 0</pose><link name="l">
    <sensor name="rgb" type="camera">{VIEW.format(extra="")}</sensor>
    <sensor name="classes" type="segmentation_camera">{VIEW.format(
        extra="<segmentation_type>semantic</segmentation_type>")}</sensor>
    <sensor name="boxes" type="boundingbox_camera">{VIEW.format(
        extra="<box_type>2d</box_type>")}</sensor>
  </link></model>
  {"".join(obj(o) for o in OBJECTS)}
</world></sdf>"""

rng = np.random.default_rng(SEED)
OUT.mkdir(parents=True, exist_ok=True)
index = []
with simcore.Simulation(WORLD, seed=SEED) as sim:
    sim.step(1)  # the sensors' topics, named below their sensor's, exist from their first frame
    topics = sim.topics()

    def topic(ending):
        return next(t for t in topics if t.endswith(ending))

    rgb = topic("/rgb/image")
    classes = topic("/classes/segmentation/labels_map")
    boxes = topic("/boxes/boundingbox")
    for frame in range(FRAMES):
        # Scatter the objects over the 4 x 4 m in front of the camera, turned at random.
        for name in OBJECTS:
            x, y = rng.uniform(1.0, 5.0), rng.uniform(-2.0, 2.0)
            yaw = rng.uniform(-np.pi, np.pi)
            half = 0.25
            sim.set_state(name, pose=(x, y, half),
                          orientation=(0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)))
        sim.step(1)  # every sensor renders at the step's end
        image = sim.read(rgb).array
        labels = sim.read(classes).array[:, :, 0]  # semantic: every channel holds the class
        labels = np.where(np.isin(labels, list(CLASSES.values())), labels, 0)
        # gz.msgs.AnnotatedAxisAligned2DBox_V as JSON: a label and a box (pixels) per object.
        found = sim.read(boxes)["data"]["annotated_box"]
        frame_boxes = [
            {"class": b["label"],
             "box": [b["box"]["min_corner"]["x"], b["box"]["min_corner"]["y"],
                     b["box"]["max_corner"]["x"], b["box"]["max_corner"]["y"]]}
            for b in found
        ]
        name = f"frame_{frame:05}.npz"
        np.savez_compressed(OUT / name, image=image, labels=labels)
        index.append({"file": name, "time": sim.time, "boxes": frame_boxes})
        counts = np.bincount(labels.ravel(), minlength=4)[1:4]
        print(f"{name}: {len(frame_boxes)} boxes, class pixels {counts.tolist()}")

(OUT / "labels.json").write_text(json.dumps(
    {"classes": CLASSES, "width": 320, "height": 240, "frames": index}, indent=1))
print(f"wrote {FRAMES} frames and labels.json to {OUT}")
