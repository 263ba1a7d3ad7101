// Placeholder: replaced by the module that implements this part.
import {el} from './dom.js';

export function mountRunTab(panel, app) {
  panel.append(el('p', {}, 'run_tab is not built yet.'));
}
